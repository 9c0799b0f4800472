package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.NodePool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * How many pools have each condition at each status and reason: the {@code nodepool_pools} gauge, for the pools whose
 * tasks an instance runs. A pool is counted by its summary ({@link #summary}), a few bytes kept per pool, so that a
 * change of its status takes the old summary out and puts the new one in. Safe to read while it is written.
 */
public final class ConditionCensus {

    /** A pool's conditions at most: the status projector writes seven. */
    static final int MAX_CONDITIONS = 16;

    /** One condition of a pool as counted. */
    public record ConditionState(String type, String status, String reason) {}

    private final Map<ConditionState, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Consumer<ConditionState> onNewState;

    /** A census that tells {@code onNewState} of each condition state the first time it counts one. */
    public ConditionCensus(Consumer<ConditionState> onNewState) {
        this.onNewState = onNewState;
    }

    /**
     * The conditions of a pool's status as counted, in a compact form ({@code type=status/reason;...}); "" for none.
     */
    public static String summary(NodePool pool) {
        if (pool == null || pool.status() == null || pool.status().conditions() == null) {
            return "";
        }
        StringBuilder summary = new StringBuilder();
        pool.status().conditions().stream().limit(MAX_CONDITIONS).forEach(c -> {
            if (!summary.isEmpty()) {
                summary.append(';');
            }
            summary.append(clean(c.type()))
                    .append('=')
                    .append(clean(c.status()))
                    .append('/')
                    .append(clean(c.reason()));
        });
        return summary.toString();
    }

    /** What {@code summary} counts. */
    static List<ConditionState> states(String summary) {
        List<ConditionState> states = new ArrayList<>();
        if (summary == null || summary.isEmpty()) {
            return states;
        }
        for (String condition : summary.split(";")) {
            int equals = condition.indexOf('=');
            int slash = condition.indexOf('/', equals + 1);
            if (equals > 0 && slash > equals) {
                states.add(new ConditionState(
                        condition.substring(0, equals),
                        condition.substring(equals + 1, slash),
                        condition.substring(slash + 1)));
            }
        }
        return states;
    }

    /** A pool's conditions went from {@code before} to {@code after} (either null: the pool was not, or is no more). */
    public void change(String before, String after) {
        if (before != null && before.equals(after)) {
            return;
        }
        for (ConditionState state : states(before)) {
            counts.computeIfAbsent(state, s -> new AtomicLong()).decrementAndGet();
        }
        for (ConditionState state : states(after)) {
            AtomicLong count = counts.get(state);
            if (count == null) {
                count = counts.computeIfAbsent(state, s -> new AtomicLong());
                onNewState.accept(state);
            }
            count.incrementAndGet();
        }
    }

    /** The pools in that condition state now. */
    public long count(ConditionState state) {
        AtomicLong count = counts.get(state);
        return count == null ? 0 : count.get();
    }

    /** The separators of the summary cannot be in its parts; a missing part is "". */
    private static String clean(String part) {
        return part == null ? "" : part.replace(';', '_').replace('=', '_').replace('/', '_');
    }
}
