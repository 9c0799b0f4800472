package com.coreweave.nodepool.preemption.streams;

import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.time.DurableTimers;
import com.coreweave.nodepool.preemption.domain.NodeActivity;
import com.coreweave.nodepool.preemption.domain.NodeTimeline;
import com.coreweave.nodepool.preemption.domain.PreemptionTimeline;
import com.coreweave.nodepool.preemption.domain.PreemptionWarnings;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jboss.logging.Logger;

/**
 * Runs the preemption timelines of one partition's pools on durable timers: every timeline lives in a changelogged
 * store, indexed by when it next comes due, and a wall-clock punctuator fires what is due. A restarted service finds
 * the same stores (restored from their changelogs) and goes on at the times set at T+0. Store changes and outputs
 * commit in one transaction, so a step is neither lost nor repeated by a crash.
 */
class TimelineProcessor implements Processor<String, Object, String, Outbound> {

    private static final Logger LOG = Logger.getLogger("preemption.timeline");

    private final PreemptionTimeline timeline;
    private final Duration tick;
    private final Clock clock;
    private ProcessorContext<String, Outbound> context;
    private KeyValueStore<String, NodeTimeline> timelines;
    private DurableTimers due;
    private KeyValueStore<String, NodeActivity> activity;

    TimelineProcessor(PreemptionTimeline timeline, Duration tick, Clock clock) {
        this.timeline = timeline;
        this.tick = tick;
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, Outbound> context) {
        this.context = context;
        timelines = context.getStateStore(StoreNames.TIMELINES);
        activity = context.getStateStore(StoreNames.ACTIVITY);
        due = DurableTimers.start(context, StoreNames.DUE, tick, clock, this::onDue);
    }

    @Override
    public void process(Record<String, Object> record) {
        Instant now = clock.instant();
        switch (record.value()) {
            case SpotReclaimRequested reclaim -> onReclaim(record.key(), reclaim, now);
            case NodeActivityReported report -> onActivity(record.key(), report, now);
            case NodeFact.NodeRemoved removed -> onNodeRemoved(record.key(), removed, now);
            case NodeFact.NodePoolReconciled reconciled
            when reconciled.nodesRemoved() -> onPoolEmptied(record.key(), reconciled.pool(), now);
            default -> {
                // Other node facts say nothing about whether a node is still there to preempt.
            }
        }
    }

    private void onReclaim(String poolKey, SpotReclaimRequested reclaim, Instant now) {
        for (String node : reclaim.nodes().stream().distinct().toList()) {
            String key = StoreNames.nodeKey(poolKey, node);
            NodeTimeline current = timelines.get(key);
            apply(key, current, timeline.start(current, reclaim, node, activity.get(key), now), now);
        }
    }

    private void onActivity(String poolKey, NodeActivityReported report, Instant now) {
        String key = StoreNames.nodeKey(poolKey, report.node());
        NodeActivity latest = NodeActivity.latest(activity.get(key), NodeActivity.of(report));
        activity.put(key, latest);
        NodeTimeline current = timelines.get(key);
        if (current != null && current.running()) {
            // An idle report during the drain removes the node at once instead of at the next tick.
            apply(key, current, timeline.advance(current, latest, now), now);
        }
    }

    private void onNodeRemoved(String poolKey, NodeFact.NodeRemoved removed, Instant now) {
        String key = StoreNames.nodeKey(poolKey, removed.node().name());
        activity.delete(key);
        cancel(key, removed.pool(), "NodeRemoved: " + removed.cause(), now);
    }

    /** A deleted pool's nodes are all gone: its timelines end and its nodes' activity is forgotten. */
    private void onPoolEmptied(String poolKey, PoolRef pool, Instant now) {
        for (String key : keysOfPool(timelines, poolKey)) {
            cancel(key, pool, "PoolNodesRemoved", now);
        }
        keysOfPool(activity, poolKey).forEach(activity::delete);
    }

    /** Ends a running timeline of the same pool incarnation silently: the node is gone, there is nothing to preempt. */
    private void cancel(String key, PoolRef pool, String cause, Instant now) {
        NodeTimeline current = timelines.get(key);
        if (current != null && Objects.equals(current.pool().uid(), pool.uid())) {
            apply(key, current, new PreemptionTimeline.Step(timeline.cancel(current, cause, now), List.of()), now);
        }
    }

    /** A timeline has come due (its timer is consumed): it is forgotten once expired, else advanced and filed again. */
    private void onDue(String key, Instant now) {
        NodeTimeline current = timelines.get(key);
        if (timeline.expired(current, now)) {
            timelines.delete(key);
        } else {
            apply(key, current, timeline.advance(current, activity.get(key), now), now, null);
        }
    }

    private void apply(String key, NodeTimeline before, PreemptionTimeline.Step step, Instant now) {
        apply(key, before, step, now, before == null ? null : timeline.dueAt(before));
    }

    /**
     * Stores the timeline, moves its timer from {@code filed} (null: none is filed) to its new due time, and writes
     * each fact with its Warning event, in order.
     */
    private void apply(String key, NodeTimeline before, PreemptionTimeline.Step step, Instant now, Instant filed) {
        NodeTimeline after = step.timeline();
        due.move(key, filed, timeline.dueAt(after));
        if (after.equals(before)) {
            return;
        }
        timelines.put(key, after);
        String poolKey = after.pool().key().toString();
        for (PreemptionFact fact : step.facts()) {
            LOG.infof(
                    "%s node %s: %s (reclaim %s)",
                    poolKey, fact.node(), fact.getClass().getSimpleName(), fact.reclaimId());
            emit(poolKey, Outbound.to(Topics.SPOT_PREEMPTION_PROGRESSED, fact), now);
            emit(
                    poolKey,
                    Outbound.to(
                            Topics.NODEPOOL_EVENT_RECORDED,
                            new RecordedEvents(List.of(PreemptionWarnings.of(fact, PreemptionTopology.SERVICE)))),
                    now);
        }
    }

    private static <V> List<String> keysOfPool(KeyValueStore<String, V> store, String poolKey) {
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, V> it =
                store.prefixScan(StoreNames.poolPrefix(poolKey), new StringSerializer())) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        return keys;
    }

    private void emit(String key, Outbound outbound, Instant now) {
        context.forward(new Record<>(key, outbound, now.toEpochMilli()));
    }
}
