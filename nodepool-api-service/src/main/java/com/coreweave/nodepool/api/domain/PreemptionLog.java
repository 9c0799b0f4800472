package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.PreemptionFact;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A pool's spot preemptions as its view keeps them: the timelines in flight, each advanced by the next fact of its
 * node, and the finished ones of the last 7 days. A replayed fact changes nothing; an unchanged log is returned as the
 * same list, so the view stays the same object.
 */
final class PreemptionLog {

    private PreemptionLog() {}

    /** T+0: a new timeline, unless this very one (node and warning time) is already held. */
    static List<PoolView.Preemption> pending(
            List<PoolView.Preemption> log, PreemptionFact.PreemptionPending p, Instant now) {
        if (log.stream()
                .anyMatch(e -> e.node().equals(p.node()) && e.pendingAt().equals(p.pendingAt()))) {
            return log;
        }
        List<PoolView.Preemption> next = recent(log, now);
        next.add(new PoolView.Preemption(p.node(), p.pendingAt(), p.drainAt(), p.removeBy(), null, null, null));
        return next;
    }

    /** The drain began: the node's timeline in flight gets its eviction time. */
    static List<PoolView.Preemption> draining(List<PoolView.Preemption> log, PreemptionFact.PreemptionInProgress d) {
        List<PoolView.Preemption> next = new ArrayList<>(log);
        for (int i = 0; i < next.size(); i++) {
            PoolView.Preemption e = next.get(i);
            if (e.inFlight() && e.node().equals(d.node()) && !d.evictedAt().equals(e.evictedAt())) {
                next.set(
                        i,
                        new PoolView.Preemption(
                                e.node(), e.pendingAt(), e.drainAt(), d.removeBy(), d.evictedAt(), null, null));
                return next;
            }
        }
        return log;
    }

    /** The node left: its timeline ends, or is recorded whole when its earlier steps were never seen. */
    static List<PoolView.Preemption> preempted(
            List<PoolView.Preemption> log, PreemptionFact.NodePreempted p, Instant now) {
        PoolView.Preemption flight = log.stream()
                .filter(e -> e.node().equals(p.node()) && e.pendingAt().equals(p.pendingAt()))
                .findFirst()
                .orElse(null);
        List<PoolView.Preemption> next = recent(log, now);
        next.removeIf(e -> e.node().equals(p.node()) && e.pendingAt().equals(p.pendingAt()));
        next.add(new PoolView.Preemption(
                p.node(),
                p.pendingAt(),
                flight == null ? null : flight.drainAt(),
                flight == null ? null : flight.removeBy(),
                flight == null ? null : flight.evictedAt(),
                p.removedAt(),
                p.cause()));
        return next;
    }

    /** What is kept: every timeline in flight, and what finished within the reference's 7 days of logs. */
    private static List<PoolView.Preemption> recent(List<PoolView.Preemption> log, Instant now) {
        Instant cutoff = now.minus(PoolViewReducer.PREEMPTION_HISTORY);
        List<PoolView.Preemption> kept = new ArrayList<>();
        for (PoolView.Preemption e : log) {
            if ((e.inFlight() ? e.pendingAt() : e.removedAt()).isAfter(cutoff)) {
                kept.add(e);
            }
        }
        return kept;
    }
}
