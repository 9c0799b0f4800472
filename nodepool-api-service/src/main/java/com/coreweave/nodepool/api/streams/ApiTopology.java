package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.DeletedPoolEvents;
import com.coreweave.nodepool.api.domain.PoolFaultPoints;
import com.coreweave.nodepool.api.domain.PoolInput;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.RequestReader;
import com.coreweave.nodepool.api.domain.ViewPart;
import com.coreweave.nodepool.api.messaging.DecisionWaiter;
import com.coreweave.nodepool.kit.faults.FaultPoints;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.streams.ProcessorLayers;
import com.coreweave.nodepool.kit.streams.io.GlobalStoreUpdater;
import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.store.SplitValues;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.Stores;

/**
 * The api-service's topology: requests from {@code nodepool-requested} and the facts of the other services meet in one
 * {@link PoolProcessor} per pool partition, which owns the pool's view, decides requests and publishes status and
 * events. Quota's and capacity's verdicts come with the provisioner's facts ({@code NodePoolReconciled}), not from
 * their own topics, so the status learns them in the commit that brings the nodes they led to.
 */
@ApplicationScoped
public class ApiTopology {

    public static final String SERVICE = "nodepool-api-service";

    @Produces
    Topology topology(
            ApiSettings settings,
            KafkaSettings kafka,
            Clock clock,
            DecisionWaiter waiter,
            PoolConditionGauges conditionGauges,
            InjectedFaults faults) {
        return build(settings, kafka.partitions(), clock, waiter::answer, conditionGauges, faults);
    }

    /** Where an operator may arm a fault ({@code /admin/faults}, when fault injection is enabled). */
    @Produces
    FaultPoints faultPoints() {
        return PoolFaultPoints.POINTS;
    }

    /**
     * Built by a plain method so that a TopologyTestDriver test can use it without Quarkus; {@code partitions} is that
     * of the service's topics, and {@code answered} is told each REST request's answer once it is committed (the call
     * waiting for it in this process returns without waiting for the answer's topic).
     */
    public static Topology build(
            ApiSettings settings,
            int partitions,
            Clock clock,
            BiConsumer<String, RequestDecided> answered,
            PoolConditionGauges conditionGauges) {
        return build(settings, partitions, clock, answered, conditionGauges, InjectedFaults.OFF);
    }

    /** The same, with the faults an operator arms at the {@link PoolFaultPoints}. */
    public static Topology build(
            ApiSettings settings,
            int partitions,
            Clock clock,
            BiConsumer<String, RequestDecided> answered,
            PoolConditionGauges conditionGauges,
            InjectedFaults faults) {
        StreamsBuilder builder = ProcessorLayers.streamsBuilder();
        // Cached: a pool's view changes with every input, often several times within one commit; the cache writes each
        // pool's last value to the changelog once per commit instead of once per input.
        builder.addStateStore(SplitValues.layered(Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(StoreNames.POOL_VIEWS),
                        Serdes.String(),
                        JsonSerde.of(PoolView.class))
                .withCachingEnabled()));
        builder.addStateStore(SplitValues.layered(Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(StoreNames.POOL_VIEW_PARTS),
                        Serdes.String(),
                        JsonSerde.of(ViewPart.class))
                .withCachingEnabled()));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.DELETED_POOL_EVENTS),
                Serdes.String(),
                JsonSerde.of(DeletedPoolEvents.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.REQUEST_IDS),
                Serdes.String(),
                JsonSerde.of(RequestDecided.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.UNVALIDATED), Serdes.String(), Serdes.String()));
        // Uncached (the default of a store builder): a catalogue published after this service started must be visible
        // to validation at once.
        GlobalStoreUpdater.addTo(
                builder, Topics.INSTANCE_TYPE_CATALOGUED, StoreNames.INSTANCE_TYPES, InstanceType.class);
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.POOL_CONDITIONS), Serdes.String(), Serdes.String()));
        // Every task's count of each org's pools and bytes, so that each task holds writes to the org's quotas.
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.ORG_POOLS),
                Serdes.String(),
                JsonSerde.of(OrgPoolCount.class)));
        GlobalStoreUpdater.addTo(builder, Topics.ORG_POOLS_COUNTED, StoreNames.ORG_POOL_COUNTS, OrgPoolCount.class);

        // Every instance answers GET .../workloads from its own copy: at most 1,000 workloads an org, small records.
        GlobalStoreUpdater.addTo(builder, Topics.WORKLOAD_STATUS, StoreNames.WORKLOAD_STATUSES, WorkloadStatus.class);

        // A pool request is audited with its answer when it is decided (RequestDecision); its refusals as it is read.
        Inputs in = new Inputs(builder, SERVICE, partitions, clock).auditingDecisionsOf(Topics.NODEPOOL_REQUESTED);
        RequestReader reader = new RequestReader();
        KStream<String, PoolInput> requests = in.read(
                        Topics.NODEPOOL_REQUESTED,
                        (key, event, raw, origin) -> reader.interpret(key, event, raw, origin.tenantOrg()),
                        Topics.NODEPOOL_REQUESTED_DLQ.name())
                .mapValues(PoolInput.Requested::new, Named.as("as-request"));
        KStream<String, PoolInput> inputs = requests.merge(
                        fact(in, Topics.NODEPOOL_NODES_CHANGED, PoolInput.NodesChanged::new))
                .merge(fact(in, Topics.SPOT_PREEMPTION_PROGRESSED, PoolInput.PreemptionProgressed::new))
                .merge(fact(in, Topics.NODEPOOL_EVENT_RECORDED, PoolInput.EventsRecorded::new));
        KStream<String, Outbound> outputs = inputs.process(
                () -> new PoolProcessor(settings, partitions, clock, answered, conditionGauges, faults),
                Named.as("pool-processor"),
                StoreNames.POOL_VIEWS,
                StoreNames.POOL_VIEW_PARTS,
                StoreNames.DELETED_POOL_EVENTS,
                StoreNames.REQUEST_IDS,
                StoreNames.UNVALIDATED,
                StoreNames.POOL_CONDITIONS,
                StoreNames.ORG_POOLS);
        Outbound.route(outputs, "write-outputs");
        return builder.build();
    }

    /** A topic's present records as the processor's input; its tombstones say nothing the processor needs. */
    private static <V> KStream<String, PoolInput> fact(Inputs in, Topic<?, V> topic, Function<V, PoolInput> input) {
        return in.read(topic)
                .filter((key, value) -> value != null, Named.as("present-" + topic.name()))
                .mapValues(input::apply, Named.as("as-fact-" + topic.name()));
    }
}
