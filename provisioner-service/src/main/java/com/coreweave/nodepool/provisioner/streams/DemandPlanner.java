package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.provisioner.domain.planner.DemandPlan;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The demand planner of the orgs of one partition: keeps each org's workloads and autoscaling pools' offers (one store
 * entry each, scanned by org, so no record grows with an org) and plans the org again ({@link DemandPlan}) whenever one
 * of them changes, and every {@link #REPLAN_INTERVAL} for orgs with workloads, since the fleet's free machines (a
 * global store) change without telling it. It writes only what changed: a pool's demand to {@code pool-demand-planned},
 * a workload's verdict to {@code workload-status}. One look plans orgs in turn until it has done {@link #STEP_WORK} (a
 * plan's work is bounded too, {@link DemandPlan#MAX_CHECKS_PER_PLAN}); the rest wait for the next look, so the stream
 * thread goes back to the other records in between and one org's plan delays another's by at most a bound.
 */
final class DemandPlanner implements Processor<String, DemandInput, String, Outbound> {

    /** The most workloads an org may have waiting at once; one more is dead-lettered with the reason. */
    static final int MAX_WORKLOADS_PER_ORG = 1_000;

    static final Duration REPLAN_INTERVAL = Duration.ofSeconds(5);

    /**
     * How often the orgs changed since the last look are planned: once for a burst of a thousand workloads, not a
     * thousand times (each plan reads the whole org).
     */
    static final Duration PLAN_INTERVAL = Duration.ofMillis(100);

    /**
     * The work (pool checks, workloads and pools gone through) after which a look leaves the other orgs to the next.
     */
    static final int STEP_WORK = DemandPlan.MAX_CHECKS_PER_PLAN;

    private static final StringSerializer KEYS = new StringSerializer();

    private final Clock clock;
    private ProcessorContext<String, Outbound> context;
    private KeyValueStore<String, PlannedWorkload> workloads;
    private KeyValueStore<String, Integer> orgWorkloads;
    private KeyValueStore<String, PlannedPool> pools;
    private ReadOnlyKeyValueStore<String, ValueAndTimestamp<FleetAvailability>> fleet;
    private ReadOnlyKeyValueStore<String, ValueAndTimestamp<InstanceType>> catalogue;
    /** Orgs with a change not planned yet; a restart loses it, and the periodic plan of every org covers that. */
    private final Set<String> changed = new LinkedHashSet<>();
    /** The look at the changed orgs, scheduled while one waits for it. */
    private Cancellable planning;
    /** The periodic plan of every org, scheduled while the planner holds a workload. */
    private Cancellable replanning;

    DemandPlanner(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, Outbound> context) {
        this.context = context;
        workloads = context.getStateStore(StoreNames.DEMAND_WORKLOADS);
        orgWorkloads = context.getStateStore(StoreNames.DEMAND_ORG_WORKLOADS);
        pools = context.getStateStore(StoreNames.DEMAND_POOLS);
        fleet = context.getStateStore(StoreNames.FLEET_AVAILABILITY);
        catalogue = context.getStateStore(StoreNames.INSTANCE_TYPES);
        changed.clear();
        planning = null;
        replanning = null;
        try (KeyValueIterator<String, PlannedWorkload> it = workloads.all()) {
            if (it.hasNext()) {
                replanEvery();
            }
        }
    }

    /*
     * Both punctuators run only while they have something to do: Kafka Streams commits a task after every punctuation,
     * so an always-ticking one would make an idle service write an empty transaction each commit interval.
     */
    private void planSoon() {
        if (planning == null) {
            planning = context.schedule(PLAN_INTERVAL, PunctuationType.WALL_CLOCK_TIME, t -> planChanged());
        }
    }

    private void replanEvery() {
        if (replanning == null) {
            replanning = context.schedule(REPLAN_INTERVAL, PunctuationType.WALL_CLOCK_TIME, t -> replanAll());
        }
    }

    @Override
    public void process(Record<String, DemandInput> record) {
        String org = record.key();
        DemandInput input = record.value();
        if (input.offer() != null) {
            onOffer(input.offer());
        } else if (!onWorkload(record, input.type(), input.workload())) {
            return;
        }
        changed.add(org);
        planSoon();
    }

    /** Plans the changed orgs in the order they changed, until the look's work is done; the rest stay for the next. */
    private void planChanged() {
        int work = 0;
        var orgs = changed.iterator();
        while (orgs.hasNext() && work < STEP_WORK) {
            String org = orgs.next();
            orgs.remove();
            work += plan(org);
        }
        if (changed.isEmpty()) {
            planning.cancel();
            planning = null;
        }
    }

    private void onOffer(PoolOffer offer) {
        String key = offer.key().toString();
        PlannedPool held = pools.get(key);
        if (offer.withdrawn()) {
            if (held != null) {
                pools.delete(key);
                if (held.given() != null
                        && (held.given().nodes() > 0 || held.given().blocked() != null)) {
                    // The pool keeps what it was last given; it is told there is nothing for it any more.
                    forward(key, Outbound.to(Topics.POOL_DEMAND_PLANNED, PoolDemand.none(offer.org(), offer.pool())));
                }
            }
            return;
        }
        pools.put(key, new PlannedPool(offer, held == null ? null : held.given()));
    }

    /** Keeps or forgets the workload; false when nothing changed that calls for a new plan. */
    private boolean onWorkload(Record<String, DemandInput> record, String type, Workload workload) {
        String key = new PoolKey(workload.org(), workload.name()).toString();
        PlannedWorkload held = workloads.get(key);
        if (Workload.GONE.equals(type)) {
            if (held == null) {
                return false;
            }
            workloads.delete(key);
            count(workload.org(), -1);
            forward(key, Outbound.tombstone(Topics.WORKLOAD_STATUS));
            return true;
        }
        if (held == null) {
            if (count(workload.org(), 0) >= MAX_WORKLOADS_PER_ORG) {
                deadLetter(record, workload);
                return false;
            }
            count(workload.org(), 1);
        }
        replanEvery();
        workloads.put(
                key,
                new PlannedWorkload(
                        workload,
                        held == null ? clock.instant() : held.arrivedAt(),
                        held == null ? null : held.published()));
        return true;
    }

    private void deadLetter(Record<String, DemandInput> record, Workload workload) {
        var meta = context.recordMetadata().orElseThrow();
        Rejection rejection = new Rejection(
                Rejection.Code.INVALID_RECORD,
                "org " + workload.org() + " has " + MAX_WORKLOADS_PER_ORG
                        + " workloads waiting, the most the demand planner holds; publish WorkloadGone for"
                        + " finished ones");
        context.forward(new Record<>(
                new PoolKey(workload.org(), workload.name()).toString(),
                Outbound.to(Topics.WORKLOAD_PENDING_DLQ, Json.bytes(workload)),
                record.timestamp(),
                Inputs.headers(
                        rejection, meta.topic(), meta.partition(), meta.offset(), ProvisionerTopology.SERVICE, clock)));
    }

    /** The org's workloads, moved by {@code by} (a new one +1, a gone one -1, 0 to read). */
    private int count(String org, int by) {
        Integer held = orgWorkloads.get(org);
        int next = (held == null ? 0 : held) + by;
        if (by != 0) {
            if (next <= 0) {
                orgWorkloads.delete(org);
            } else {
                orgWorkloads.put(org, next);
            }
        }
        return next;
    }

    /** Plans every org that has workloads: the fleet may have changed under them. */
    private void replanAll() {
        Set<String> orgs = new LinkedHashSet<>();
        try (KeyValueIterator<String, PlannedWorkload> it = workloads.all()) {
            it.forEachRemaining(entry -> orgs.add(entry.value.workload().org()));
        }
        if (orgs.isEmpty()) {
            replanning.cancel();
            replanning = null;
            return;
        }
        changed.addAll(orgs);
        planSoon();
    }

    /** Plans one org; its work. */
    private int plan(String org) {
        List<DemandPlan.Waiting> waiting = new ArrayList<>();
        try (KeyValueIterator<String, PlannedWorkload> it = workloads.prefixScan(PoolKey.orgPrefix(org), KEYS)) {
            it.forEachRemaining(
                    entry -> waiting.add(new DemandPlan.Waiting(entry.value.workload(), entry.value.arrivedAt())));
        }
        List<PoolOffer> offers = new ArrayList<>();
        try (KeyValueIterator<String, PlannedPool> it = pools.prefixScan(PoolKey.orgPrefix(org), KEYS)) {
            it.forEachRemaining(entry -> offers.add(entry.value.offer()));
        }
        DemandPlan.Result result = DemandPlan.plan(
                waiting, offers, ledger -> value(fleet.get(ledger.toString())), type -> value(catalogue.get(type)));
        for (PoolDemand demand : result.demands()) {
            String key = demand.key().toString();
            PlannedPool held = pools.get(key);
            PoolDemand given =
                    held == null || held.given() == null ? PoolDemand.none(demand.org(), demand.pool()) : held.given();
            if (held != null && !demand.equals(given)) {
                pools.put(key, new PlannedPool(held.offer(), demand));
                forward(key, Outbound.to(Topics.POOL_DEMAND_PLANNED, demand));
            }
        }
        for (WorkloadStatus status : result.statuses()) {
            String key = status.key().toString();
            PlannedWorkload held = workloads.get(key);
            if (held != null && !Objects.equals(status, held.published())) {
                workloads.put(key, new PlannedWorkload(held.workload(), held.arrivedAt(), status));
                forward(key, Outbound.to(Topics.WORKLOAD_STATUS, status));
            }
        }
        return result.work() + offers.size();
    }

    private void forward(String key, Outbound outbound) {
        context.forward(new Record<>(key, outbound, clock.millis()));
    }

    private static <V> V value(ValueAndTimestamp<V> stored) {
        return stored == null ? null : stored.value();
    }
}
