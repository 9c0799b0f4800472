package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.domain.ConditionCensus;
import com.coreweave.nodepool.api.domain.ConditionCensus.ConditionState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The {@code nodepool_pools{condition,status,reason}} gauges: the pools of the tasks this instance runs, by each
 * condition's state, summed over the instance's partitions (each task keeps its partition's {@link ConditionCensus}).
 * Summed over every instance, they count every pool once. The states come from the status projector, not from callers;
 * the series are bounded all the same.
 */
@ApplicationScoped
public class PoolConditionGauges {

    private static final Logger LOG = Logger.getLogger(PoolConditionGauges.class);
    static final int MAX_SERIES = 256;

    private final MeterRegistry registry;
    private final Map<Integer, ConditionCensus> partitions = new ConcurrentHashMap<>();
    private final Set<ConditionState> registered = ConcurrentHashMap.newKeySet();

    @Inject
    public PoolConditionGauges(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A census for the task of {@code partition}, replacing one an earlier task of it left. */
    ConditionCensus open(int partition) {
        ConditionCensus census = new ConditionCensus(this::register);
        partitions.put(partition, census);
        return census;
    }

    /** The task of {@code partition} closed (it moved, or the instance stops): its pools are counted elsewhere. */
    void close(int partition, ConditionCensus census) {
        partitions.remove(partition, census);
    }

    long pools(ConditionState state) {
        return partitions.values().stream().mapToLong(c -> c.count(state)).sum();
    }

    private void register(ConditionState state) {
        if (registered.contains(state)) {
            return;
        }
        if (registered.size() >= MAX_SERIES) {
            LOG.warnf("nodepool_pools has %d series; %s is not shown", MAX_SERIES, state);
            return;
        }
        if (registered.add(state)) {
            Gauge.builder("nodepool.pools", () -> pools(state))
                    .description("Pools whose status has this condition at this status and reason")
                    .tag("condition", state.type())
                    .tag("status", state.status())
                    .tag("reason", state.reason())
                    .register(registry);
        }
    }
}
