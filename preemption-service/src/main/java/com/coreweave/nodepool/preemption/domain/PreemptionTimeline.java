package com.coreweave.nodepool.preemption.domain;

import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The spot preemption timeline of one node, as a pure function of its state, its latest activity and the time: Pending
 * at T+0, Draining at T+warning-period (SIGTERM, then SIGKILL after the grace period), Removed when drained or at
 * T+removal-deadline, whichever is first. Every phase that has come due fires, in order, so a service that was down
 * while several came due catches up without skipping or repeating one.
 */
public final class PreemptionTimeline {

    /** The node emptied before the deadline: its workloads finished, or SIGKILL ended them after the grace period. */
    public static final String DRAINED = "Drained";
    /** The removal deadline came while workloads still ran. */
    public static final String DEADLINE = "Deadline";

    private final Duration warningPeriod;
    private final Duration removalDeadline;
    private final Duration defaultGrace;
    private final Duration finishedRetention;

    public PreemptionTimeline(
            Duration warningPeriod, Duration removalDeadline, Duration defaultGrace, Duration finishedRetention) {
        for (Duration d : List.of(warningPeriod, removalDeadline, defaultGrace, finishedRetention)) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("preemption durations must not be negative, got " + d);
            }
        }
        if (removalDeadline.compareTo(warningPeriod) < 0) {
            throw new IllegalArgumentException("preemption.removal-deadline (" + removalDeadline + ") is measured from "
                    + "T+0 and cannot come before the drain at preemption.warning-period (" + warningPeriod + ")");
        }
        this.warningPeriod = warningPeriod;
        this.removalDeadline = removalDeadline;
        this.defaultGrace = defaultGrace;
        this.finishedRetention = finishedRetention;
    }

    /** A timeline after a change, and the facts that change produced, in the order they happened. */
    public record Step(NodeTimeline timeline, List<PreemptionFact> facts) {}

    /**
     * A reclaim names the node: it enters the timeline at {@code now}. A node already in a timeline keeps it, and a
     * finished timeline is not started again by the same reclaim; a new reclaim of a node whose timeline finished (the
     * machine came back to the pool since) starts a new one.
     */
    public Step start(
            NodeTimeline current, SpotReclaimRequested reclaim, String node, NodeActivity activity, Instant now) {
        if (current != null && (current.running() || current.reclaimId().equals(reclaim.reclaimId()))) {
            return new Step(current, List.of());
        }
        NodeTimeline pending = NodeTimeline.pending(
                reclaim.reclaimId(), reclaim.pool(), node, now, now.plus(warningPeriod), now.plus(removalDeadline));
        List<PreemptionFact> facts = new ArrayList<>();
        facts.add(new PreemptionFact.PreemptionPending(
                pending.reclaimId(), pending.pool(), node, pending.pendingAt(), pending.drainAt(), pending.removeBy()));
        Step rest = advance(pending, activity, now);
        facts.addAll(rest.facts());
        return new Step(rest.timeline(), List.copyOf(facts));
    }

    /** Fires every phase that is due at {@code now}, in order. */
    public Step advance(NodeTimeline timeline, NodeActivity activity, Instant now) {
        List<PreemptionFact> facts = new ArrayList<>();
        NodeTimeline current = timeline;
        for (NodeTimeline next = next(current, activity, now); next != null; next = next(current, activity, now)) {
            facts.add(factOf(next));
            current = next;
        }
        return new Step(current, List.copyOf(facts));
    }

    /** The node left the pool for another reason: a running timeline ends without a fact of its own. */
    public NodeTimeline cancel(NodeTimeline timeline, String cause, Instant now) {
        return timeline.running() ? timeline.cancelled(now, cause) : timeline;
    }

    /** When the timeline next needs attention: its next phase, or, once finished, when it is pruned. */
    public Instant dueAt(NodeTimeline timeline) {
        return switch (timeline.phase()) {
            case Pending -> timeline.drainAt();
            case Draining -> earlier(timeline.killAt(), timeline.removeBy());
            case Removed, Cancelled -> timeline.finishedAt().plus(finishedRetention);
        };
    }

    /** A finished timeline past its retention is forgotten. */
    public boolean expired(NodeTimeline timeline, Instant now) {
        return !timeline.running() && !now.isBefore(timeline.finishedAt().plus(finishedRetention));
    }

    private NodeTimeline next(NodeTimeline timeline, NodeActivity activity, Instant now) {
        return switch (timeline.phase()) {
            case Pending -> now.isBefore(timeline.drainAt()) ? null : timeline.draining(now, graceOf(activity));
            case Draining -> removal(timeline, activity, now);
            case Removed, Cancelled -> null;
        };
    }

    /** Drained once the workload reports idle or SIGKILL has ended it; removed at the deadline at the latest. */
    private static NodeTimeline removal(NodeTimeline timeline, NodeActivity activity, Instant now) {
        if (activity != null && activity.idle()) {
            return timeline.removed(now, DRAINED);
        }
        if (now.isBefore(earlier(timeline.killAt(), timeline.removeBy()))) {
            return null;
        }
        return timeline.removed(now, timeline.killAt().isAfter(timeline.removeBy()) ? DEADLINE : DRAINED);
    }

    private Duration graceOf(NodeActivity activity) {
        return activity == null || activity.terminationGracePeriodSeconds() == null
                ? defaultGrace
                : Duration.ofSeconds(activity.terminationGracePeriodSeconds());
    }

    private static PreemptionFact factOf(NodeTimeline t) {
        return switch (t.phase()) {
            case Draining ->
                new PreemptionFact.PreemptionInProgress(
                        t.reclaimId(), t.pool(), t.node(), t.evictedAt(), t.gracePeriodSeconds(), t.removeBy());
            case Removed ->
                new PreemptionFact.NodePreempted(
                        t.reclaimId(), t.pool(), t.node(), t.pendingAt(), t.finishedAt(), t.cause());
            case Pending, Cancelled -> throw new IllegalStateException("no step of the timeline enters " + t.phase());
        };
    }

    private static Instant earlier(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
