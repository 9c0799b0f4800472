package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import java.util.List;

/**
 * A pool after one input or timer: its new state (null: forget the pool), the node facts to publish in order, and
 * the events to record.
 */
public record Outcome(PoolState state, List<NodeFact> facts, List<RecordedEvent> events) {

  public static Outcome unchanged(PoolState state) {
    return new Outcome(state, List.of(), List.of());
  }
}
