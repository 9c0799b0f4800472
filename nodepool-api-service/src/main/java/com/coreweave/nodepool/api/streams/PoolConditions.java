package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.domain.ConditionCensus;
import com.coreweave.nodepool.schema.resource.NodePool;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One task's part of the {@code nodepool_pools} gauges: each pool's conditions as last published, in a store of their
 * own (a few bytes a pool, read whole when the task starts), and the partition's census they add up to.
 */
final class PoolConditions {

    private final KeyValueStore<String, String> summaries;
    private final ConditionCensus census;

    PoolConditions(KeyValueStore<String, String> summaries, ConditionCensus census) {
        this.summaries = summaries;
        this.census = census;
        try (KeyValueIterator<String, String> all = summaries.all()) {
            all.forEachRemaining(pool -> census.change(null, pool.value));
        }
    }

    /** Pool {@code key} was published with these conditions. */
    void published(String key, NodePool pool) {
        String after = ConditionCensus.summary(pool);
        String before = summaries.get(key);
        if (!after.equals(before)) {
            summaries.put(key, after);
            census.change(before, after);
        }
    }

    /** Pool {@code key} is gone. */
    void gone(String key) {
        String before = summaries.get(key);
        if (before != null) {
            summaries.delete(key);
            census.change(before, null);
        }
    }
}
