package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** Everything a ledger of one zone × instance type acts on, after re-keying to {@code <zone>/<instanceType>}. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "input")
@JsonSubTypes({
    @JsonSubTypes.Type(value = LedgerInput.Demand.class, name = "Demand"),
    @JsonSubTypes.Type(value = LedgerInput.Forget.class, name = "Forget"),
    @JsonSubTypes.Type(value = LedgerInput.Release.class, name = "Release"),
    @JsonSubTypes.Type(value = LedgerInput.FleetChange.class, name = "FleetChange")
})
public sealed interface LedgerInput {

  /** A pool's quota decision: its demand is {@code checked.admittedNodes}. */
  record Demand(String pool, QuotaChecked checked) implements LedgerInput {
  }

  /** The pool incarnation {@code poolUid} is gone (quota tombstone): its grants are freed and it is forgotten. */
  record Forget(String pool, String poolUid) implements LedgerInput {
  }

  /** The provisioner released a grant (a node left the pool). */
  record Release(NodeFact.NodeRemoved removed) implements LedgerInput {
  }

  /** An operator's change to the fleet. */
  record FleetChange(FleetChangeRequested request) implements LedgerInput {
  }
}
