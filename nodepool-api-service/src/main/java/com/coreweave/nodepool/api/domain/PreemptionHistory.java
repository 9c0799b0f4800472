package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.Node;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A spot pool's preemptions over the last 7 days (the reference keeps preemption logs for a week), counted per day,
 * with the nodes being preempted right now (names, and each one's timeline in {@code inProgress}) and an interruption
 * rate: preemptions per node-day run.
 */
public record PreemptionHistory(
        String nodePool,
        List<PoolView.Preemption> preempted,
        Map<String, Integer> perDay,
        long last24h,
        long last7d,
        double nodeDays7d,
        Double interruptionsPerNodeDay,
        List<String> nodesPendingPreemption,
        List<PoolView.Preemption> inProgress) {

    public static PreemptionHistory of(PoolView view, Instant now) {
        Instant weekAgo = now.minus(7, ChronoUnit.DAYS);
        List<PoolView.Preemption> week = view.preemptions().stream()
                .filter(p -> !p.inFlight() && p.removedAt().isAfter(weekAgo))
                .sorted(Comparator.comparing(PoolView.Preemption::removedAt))
                .toList();
        Map<String, Integer> perDay = new TreeMap<>();
        week.forEach(p ->
                perDay.merge(LocalDate.ofInstant(p.removedAt(), ZoneOffset.UTC).toString(), 1, Integer::sum));
        long last24h = week.stream()
                .filter(p -> p.removedAt().isAfter(now.minus(1, ChronoUnit.DAYS)))
                .count();
        double nodeDays = view.nodeTime().nodeDaysSince(LocalDate.ofInstant(weekAgo, ZoneOffset.UTC), now);
        Double rate = nodeDays > 0 ? week.size() / nodeDays : null;
        List<String> pending = view.nodes().values().stream()
                .filter(n -> n.metadata().labels() != null
                        && "true".equals(n.metadata().labels().get(Node.LABEL_PENDING_PREEMPTION)))
                .map(Node::name)
                .toList();
        // A timeline whose node has already gone another way (e.g. the pool was scaled down) is not shown as running.
        List<PoolView.Preemption> inProgress = view.preemptions().stream()
                .filter(p -> p.inFlight() && view.nodes().containsKey(p.node()))
                .sorted(Comparator.comparing(PoolView.Preemption::pendingAt))
                .toList();
        return new PreemptionHistory(
                view.accepted().nodePool().name(),
                week,
                perDay,
                last24h,
                week.size(),
                nodeDays,
                rate,
                pending,
                inProgress);
    }
}
