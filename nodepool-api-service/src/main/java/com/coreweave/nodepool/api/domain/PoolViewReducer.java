package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The pure fold of one fact into a pool's view: {@code (view, fact) -> view}. Facts about another incarnation of the
 * pool (another uid) and decisions older than the one held are ignored, so replays and reordering across topics cannot
 * roll the view back.
 */
public final class PoolViewReducer {

    /** Preemption history is kept as long as the reference keeps preemption logs. */
    public static final Duration PREEMPTION_HISTORY = Duration.ofDays(7);

    private PoolViewReducer() {}

    public static PoolView apply(PoolView view, Object fact, Instant now) {
        return switch (fact) {
            case NodeFact.NodePoolReconciled r
            when current(view, r.pool())
                    && newer(
                            view.reconciled() == null ? null : view.reconciled().pool(), r.pool()) ->
                view.withReconciled(r);
            case NodeFact.NodeRemoved removed
            when current(view, removed.pool()) -> withNode(view, removed.node().name(), null, now);
            case NodeFact.AboutNode about
            when current(view, about.pool()) -> withNode(view, about.node().name(), about.node(), now);
            case PreemptionFact.PreemptionPending p
            when current(view, p.pool()) -> withPreemptions(view, PreemptionLog.pending(view.preemptions(), p, now));
            case PreemptionFact.PreemptionInProgress d
            when current(view, d.pool()) -> withPreemptions(view, PreemptionLog.draining(view.preemptions(), d));
            case PreemptionFact.NodePreempted p
            when current(view, p.pool()) -> withPreemptions(view, PreemptionLog.preempted(view.preemptions(), p, now));
            default -> view;
        };
    }

    private static PoolView withPreemptions(PoolView view, List<PoolView.Preemption> log) {
        return log == view.preemptions() ? view : view.withPreemptions(log);
    }

    /** The new nodes, and the node-time account advanced to now with the new count of registered nodes. */
    /**
     * The node as it is now (null: gone), and the node-time account advanced to now with the new count of registered
     * nodes: the count the account holds, less the node as it was, plus the node as it is (a fact of a 5,000-node pool
     * does not count them all again).
     */
    private static PoolView withNode(PoolView view, String name, Node after, Instant now) {
        Node before = view.nodes().get(name);
        int registered = view.nodeTime().nodes() - registered(before) + registered(after);
        return view.withNode(name, after).withNodeTime(view.nodeTime().advance(now, registered));
    }

    private static int registered(Node node) {
        return node != null && (node.phase() == Node.Phase.Registered || node.phase() == Node.Phase.Draining) ? 1 : 0;
    }

    private static boolean current(PoolView view, PoolRef ref) {
        return view.uid().equals(ref.uid());
    }

    /** A summary of the same or a later generation replaces the one held (level-triggered re-checks included). */
    private static boolean newer(PoolRef held, PoolRef incoming) {
        return held == null || incoming.generation() >= held.generation();
    }
}
