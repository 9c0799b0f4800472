package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.kit.streams.Rejection;
import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;

/**
 * How the capacity-service reads its inputs: JSON of the contract, plus what the ledger relies on (the key matches
 * the value, the pool names its incarnation, zone and type). Anything else goes to {@code capacity-service-dlq}.
 */
final class Readers {

  private Readers() {
  }

  /** Quota decisions; a tombstone stays null. Demand for a type where it is not offered cannot be served. */
  static RecordReader<QuotaChecked> quotaChecked(Catalogue catalogue) {
    RecordReader<QuotaChecked> json = RecordReader.jsonOrTombstone(QuotaChecked.class);
    return (key, value) -> {
      QuotaChecked checked = json.read(key, value);
      if (checked == null) {
        return null;
      }
      checkPool(key, checked.pool());
      if (checked.admittedNodes() > 0) {
        catalogue.refusal(checked.pool().zone(), checked.pool().instanceType()).ifPresent(why -> {
          throw new Rejection("InstanceTypeNotInZone", checked.admittedNodes() + " node(s) admitted, but " + why);
        });
      }
      return checked;
    };
  }

  /** Node facts, of the pool their key names; a {@code NodeRemoved} must name the grant it releases. */
  static RecordReader<NodeFact> nodeFacts() {
    RecordReader<NodeFact> json = RecordReader.json(NodeFact.class);
    return (key, value) -> {
      NodeFact fact = json.read(key, value);
      checkPool(key, fact.pool());
      if (fact instanceof NodeFact.NodeRemoved removed) {
        if (removed.grant() == null || removed.grant().machine() == null) {
          throw new Rejection("Invalid", "NodeRemoved names no grant to release");
        }
      }
      return fact;
    };
  }

  /** Operators' fleet changes, keyed by the ledger they change, for a type offered in that zone. */
  static RecordReader<FleetChangeRequested> fleetChanges(Catalogue catalogue) {
    RecordReader<FleetChangeRequested> json = RecordReader.json(FleetChangeRequested.class);
    return (key, value) -> {
      FleetChangeRequested change = json.read(key, value);
      if (change.requestId() == null || change.requestId().isBlank() || change.operation() == null
          || change.zone() == null || change.instanceType() == null) {
        throw new Rejection("Invalid", "a fleet change needs requestId, zone, instanceType and operation");
      }
      if (!key.equals(change.key().toString())) {
        throw new Rejection("KeyMismatch", "key '" + key + "' does not match the change's zone and instance type '"
            + change.key() + "'");
      }
      catalogue.refusal(change.zone(), change.instanceType()).ifPresent(why -> {
        throw new Rejection("InstanceTypeNotInZone", why);
      });
      return change;
    };
  }

  private static void checkPool(String key, PoolRef pool) {
    if (pool == null || pool.org() == null || pool.pool() == null || pool.uid() == null || pool.zone() == null
        || pool.instanceType() == null) {
      throw new Rejection("Invalid", "the pool reference needs org, pool, uid, zone and instanceType");
    }
    if (!key.equals(pool.org() + "/" + pool.pool())) {
      throw new Rejection("KeyMismatch", "key '" + key + "' does not match the pool '" + pool.org() + "/"
          + pool.pool() + "'");
    }
  }
}
