package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.kit.streams.commit.FlushedOutputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.store.SplitValues;
import com.coreweave.nodepool.kit.streams.time.DurableTimers;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.provisioner.domain.PoolReconciler;
import com.coreweave.nodepool.provisioner.domain.controllers.health.AlertCatalogue;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.Outcome;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The single writer of the nodes of the pools of one partition. Every input is applied and the pool reconciled by
 * {@link PoolReconciler}; boot and drain deadlines live in the {@code provisioner-timers} store and a wall-clock
 * punctuator reconciles the pools whose deadline has come, so a restarted service fires them at their time. The stores,
 * the outputs and the input offsets commit in one transaction.
 */
class ProvisionerProcessor implements Processor<String, PoolInput, String, Outbound> {

    /**
     * How much of its pools each task keeps parsed, weighed as one plus the pool's nodes (a 10-node pool is tens of
     * KB): 500 pools of 10 nodes, or 2,750 of one. A pool's inputs and timers come within seconds of each other.
     */
    private static final long RECENT_POOL_WEIGHT = 5_500;

    private final PoolReconciler reconciler;
    private final Duration timerInterval;
    private final Clock clock;
    private ProcessorContext<String, Outbound> context;
    private SplitValues<PoolState, PoolState, PoolMember> pools;
    /**
     * A pool's summary goes out once per commit, its last: the node facts before it say what changed. It leaves when
     * the pool's head is written, which every new summary changes (the head keeps the last one sent).
     */
    private FlushedOutputs<Outbound> summaries;

    private DurableTimers timers;
    private KeyValueStore<String, NodeReleasePublished> releases;
    /** The releases store as a value, read once (it holds a release per train) and kept with every change of it. */
    private NodeReleases known;

    ProvisionerProcessor(ProvisioningPolicy policy, Duration timerInterval, Clock clock) {
        this.reconciler = new PoolReconciler(policy, AlertCatalogue.standard());
        this.timerInterval = timerInterval;
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, Outbound> context) {
        this.context = context;
        pools = new SplitValues<>(
                context.getStateStore(StoreNames.POOLS),
                context.getStateStore(StoreNames.POOL_MEMBERS),
                new PoolShape(),
                RECENT_POOL_WEIGHT,
                pool -> 1 + pool.nodes().size());
        summaries = FlushedOutputs.of(context, pools.heads());
        releases = context.getStateStore(StoreNames.RELEASES);
        timers = DurableTimers.start(context, StoreNames.TIMERS, timerInterval, clock, this::onTimer);
    }

    @Override
    public void process(Record<String, PoolInput> record) {
        if (record.value() instanceof PoolInput.ReleasePublished published) {
            onRelease(published.release());
            return;
        }
        PoolState before = pools.get(record.key());
        save(record.key(), before, reconciler.handle(before, record.value(), clock.instant(), releases()));
    }

    /**
     * Every partition receives every release, so each task keeps all of them and reconciles its own pools with a new
     * one; a release seen before (a redelivery, or the compacted topic read again) changes nothing.
     */
    private void onRelease(NodeReleasePublished release) {
        if (release.equals(releases.get(release.releaseTrain()))) {
            return;
        }
        releases.put(release.releaseTrain(), release);
        known = releases().with(release);
        Instant now = clock.instant();
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, PoolState> it = pools.heads().all()) {
            it.forEachRemaining(pool -> keys.add(pool.key));
        }
        for (String key : keys) {
            PoolState before = pools.get(key);
            save(key, before, reconciler.reconcile(before, now, known));
        }
    }

    private NodeReleases releases() {
        if (known == null) {
            NodeReleases stored = NodeReleases.INITIAL;
            try (KeyValueIterator<String, NodeReleasePublished> it = releases.all()) {
                while (it.hasNext()) {
                    stored = stored.with(it.next().value);
                }
            }
            known = stored;
        }
        return known;
    }

    /** A pool's deadline has come; its timer is consumed whatever the reconcile does, and save() files the next. */
    private void onTimer(String key, Instant now) {
        PoolState before = pools.get(key);
        if (before != null) {
            save(key, before, reconciler.reconcile(before, now, releases()), null);
        }
    }

    private void save(String key, PoolState before, Outcome outcome) {
        save(key, before, outcome, before == null ? null : before.wakeAt());
    }

    /** Stores the pool (or forgets it), moves its timer, and writes what the change produced. */
    private void save(String key, PoolState before, Outcome outcome, Instant filedTimer) {
        PoolState after = outcome.state();
        Instant nextTimer = after == null ? null : after.wakeAt();
        if (after == null) {
            if (before != null) {
                pools.delete(key);
            }
        } else if (!after.equals(before)) {
            pools.put(key, after);
        }
        timers.move(key, filedTimer, nextTimer);
        long timestamp = clock.millis();
        for (NodeFact fact : outcome.facts()) {
            Record<String, Outbound> record =
                    new Record<>(key, Outbound.to(Topics.NODEPOOL_NODES_CHANGED, fact), timestamp);
            if (fact instanceof NodeFact.NodePoolReconciled) {
                summaries.hold(record);
            } else {
                context.forward(record);
            }
        }
        for (RecordedEvents events : RecordedEvents.chunked(outcome.events())) {
            context.forward(new Record<>(key, Outbound.to(Topics.NODEPOOL_EVENT_RECORDED, events), timestamp));
        }
        outcome.requests()
                .forEach(request ->
                        context.forward(new Record<>(key, Outbound.to(Topics.NODEPOOL_REQUESTED, request), timestamp)));
        if (outcome.offer() != null) {
            // Keyed by org: the demand planner plans an org's pools together.
            context.forward(
                    new Record<>(outcome.offer().org(), Outbound.to(Topics.POOL_OFFERED, outcome.offer()), timestamp));
        }
    }
}
