package com.coreweave.nodepool.api.domain;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;

/**
 * How many node-seconds a pool ran per UTC day, kept for a week: the denominator of the interruption rate (preemptions
 * per node-day) that spot users ask for. Integrates the registered node count over time.
 */
public record NodeTime(Instant since, int nodes, Map<String, Long> secondsPerDay) {

    static final int DAYS_KEPT = 8;

    public static NodeTime start(Instant now) {
        return new NodeTime(now, 0, Map.of());
    }

    /** The account after {@code nodes} registered nodes from {@code now} on. */
    public NodeTime advance(Instant now, int nodesFromNow) {
        if (!now.isAfter(since)) {
            return new NodeTime(since, nodesFromNow, secondsPerDay);
        }
        TreeMap<String, Long> days = new TreeMap<>(secondsPerDay);
        Instant cursor = since;
        while (cursor.isBefore(now)) {
            LocalDate day = LocalDate.ofInstant(cursor, ZoneOffset.UTC);
            Instant dayEnd = day.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC);
            Instant until = dayEnd.isBefore(now) ? dayEnd : now;
            long seconds = Duration.between(cursor, until).toSeconds() * nodes;
            if (seconds > 0) {
                days.merge(day.toString(), seconds, Long::sum);
            }
            cursor = until;
        }
        while (days.size() > DAYS_KEPT) {
            days.pollFirstEntry();
        }
        return new NodeTime(now, nodesFromNow, days);
    }

    /** Node-days run since {@code from} (whole days as counted, up to {@code now}). */
    public double nodeDaysSince(LocalDate from, Instant now) {
        NodeTime upToNow = advance(now, nodes);
        return upToNow.secondsPerDay().entrySet().stream()
                        .filter(e -> !LocalDate.parse(e.getKey()).isBefore(from))
                        .mapToLong(Map.Entry::getValue)
                        .sum()
                / 86_400.0;
    }
}
