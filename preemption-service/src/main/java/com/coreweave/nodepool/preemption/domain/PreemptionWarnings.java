package com.coreweave.nodepool.preemption.domain;

import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;

/**
 * The Warning event on the Node that each timeline fact gives users (reasons {@code Preemption pending},
 * {@code Preemption in progress}, {@code Deleted for preemption}). The event id names the reclaim, the node and the
 * phase, so a replayed fact gives the same event.
 */
public final class PreemptionWarnings {

    private PreemptionWarnings() {}

    public static RecordedEvent of(PreemptionFact fact, String component) {
        return switch (fact) {
            case PreemptionFact.PreemptionPending p ->
                RecordedEvent.ofNode(
                        p.pool(),
                        p.node(),
                        CwEvent.PreemptionPending,
                        "Node " + p.node() + " is designated for preemption: cordoned and labelled "
                                + Node.LABEL_PENDING_PREEMPTION + "=true. Workloads keep running until the drain at "
                                + p.drainAt()
                                + "; the node leaves the pool by " + p.removeBy() + ".",
                        p.reclaimId(),
                        component,
                        p.pendingAt());
            case PreemptionFact.PreemptionInProgress d ->
                RecordedEvent.ofNode(
                        d.pool(),
                        d.node(),
                        CwEvent.PreemptionInProgress,
                        "Node " + d.node() + " is draining (" + Node.LABEL_EVICTED_AT + "=" + d.evictedAt()
                                + "): workloads got "
                                + "SIGTERM and have " + d.gracePeriodSeconds()
                                + "s before SIGKILL; the node leaves the pool by "
                                + d.removeBy() + ".",
                        d.reclaimId(),
                        component,
                        d.evictedAt());
            case PreemptionFact.NodePreempted r ->
                RecordedEvent.ofNode(
                        r.pool(),
                        r.node(),
                        CwEvent.DeletedForPreemption,
                        "Node " + r.node() + " was removed from the pool for preemption "
                                + (PreemptionTimeline.DEADLINE.equals(r.cause())
                                        ? "at the end of the preemption window"
                                        : "once drained")
                                + ".",
                        r.reclaimId(),
                        component,
                        r.removedAt());
        };
    }
}
