package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The node events the reference's events table lists under "Node, NodePool": each is recorded on the Node and, as a
 * copy with the same reason and message (which names the node), on its NodePool, so that {@code kubectl describe
 * nodepool} shows it too.
 */
public final class NodeEventsOnPool {

    /** The ten reasons of reference 000 whose resource is "Node, NodePool". */
    public static final Set<CwEvent> ALSO_ON_POOL = EnumSet.of(
            CwEvent.CWNodeRegistered,
            CwEvent.CWNodeCordoned,
            CwEvent.CWNodeUncordoned,
            CwEvent.CWNodeMarkedPrepareForTerminate,
            CwEvent.CWNodeDraining,
            CwEvent.CWNodeDrainingPDBViolation,
            CwEvent.CWNodeDrainingForceDelete,
            CwEvent.CWNodePreparedForTerminate,
            CwEvent.CWNodeTainted,
            CwEvent.CWNodeUntainted);

    private static final Set<String> REASONS =
            ALSO_ON_POOL.stream().map(CwEvent::reason).collect(Collectors.toUnmodifiableSet());

    private NodeEventsOnPool() {}

    /**
     * The pool's copy of {@code recorded}, or null when it is not a node event the pool shows too. Its id is the node
     * event's with a suffix, so that a replay of the node event is recognised for the copy as well.
     */
    public static RecordedEvent poolCopy(RecordedEvent recorded) {
        if (!"Node".equals(recorded.involvedObject().kind()) || !REASONS.contains(recorded.reason())) {
            return null;
        }
        return new RecordedEvent(
                recorded.id() + "/NodePool",
                recorded.org(),
                recorded.pool(),
                recorded.poolUid(),
                ObjectReference.nodePool(recorded.pool(), recorded.poolUid()),
                recorded.reason(),
                recorded.type(),
                recorded.message(),
                recorded.component(),
                recorded.at());
    }
}
