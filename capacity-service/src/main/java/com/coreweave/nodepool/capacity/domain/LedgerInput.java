package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/** Everything a ledger of one zone × instance type acts on, keyed {@code <zone>/<instanceType>}. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "input")
@JsonSubTypes({
    @JsonSubTypes.Type(value = LedgerInput.Demand.class, name = "Demand"),
    @JsonSubTypes.Type(value = LedgerInput.Forget.class, name = "Forget"),
    @JsonSubTypes.Type(value = LedgerInput.Release.class, name = "Release"),
    @JsonSubTypes.Type(value = LedgerInput.FleetChange.class, name = "FleetChange")
})
public sealed interface LedgerInput {

    /** The input a pool's {@code capacity-demanded} record stands for. */
    static LedgerInput of(CapacityDemanded demanded) {
        return demanded.quota() != null
                ? new Demand(demanded.pool(), demanded.quota())
                : new Forget(demanded.pool(), demanded.goneUid());
    }

    /** A pool's quota decision: its demand is {@code checked.admittedNodes}. */
    record Demand(String pool, QuotaChecked checked) implements LedgerInput {}

    /**
     * The pool incarnation {@code poolUid} left its quota (deleted or moved): its grants are freed, it is forgotten.
     */
    record Forget(String pool, String poolUid) implements LedgerInput {}

    /** The provisioner released a grant (a node left the pool). */
    record Release(NodeFact.NodeRemoved removed) implements LedgerInput {}

    /** An operator's change to the fleet. */
    record FleetChange(FleetChangeRequested request) implements LedgerInput {}
}
