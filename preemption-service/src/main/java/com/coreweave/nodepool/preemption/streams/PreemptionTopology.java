package com.coreweave.nodepool.preemption.streams;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.streams.ProcessorLayers;
import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.time.DurableTimers;
import com.coreweave.nodepool.preemption.config.PreemptionSettings;
import com.coreweave.nodepool.preemption.domain.NodeActivity;
import com.coreweave.nodepool.preemption.domain.NodeTimeline;
import com.coreweave.nodepool.preemption.domain.PreemptionTimeline;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.Stores;

/**
 * The preemption-service's topology: reclaim requests from the capacity-service, activity reports and the provisioner's
 * node facts (all keyed {@code <org>/<pool>}, co-partitioned) meet in one {@link TimelineProcessor} per partition,
 * which writes {@code spot-preemption-progressed} and the Warning events. Records it cannot read go to
 * {@code preemption-service-dlq}.
 */
@ApplicationScoped
public class PreemptionTopology {

    public static final String SERVICE = "preemption-service";

    @Produces
    Topology topology(PreemptionSettings settings, KafkaSettings kafka, Clock clock) {
        return build(settings, kafka.partitions(), clock);
    }

    /**
     * Built by a plain method so that a TopologyTestDriver test can use it without Quarkus; {@code partitions} is that
     * of the service's topics.
     */
    public static Topology build(PreemptionSettings settings, int partitions, Clock clock) {
        PreemptionTimeline timeline = new PreemptionTimeline(
                settings.warningPeriod(),
                settings.removalDeadline(),
                settings.defaultGrace(),
                settings.finishedRetention());
        StreamsBuilder builder = ProcessorLayers.streamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.TIMELINES),
                Serdes.String(),
                JsonSerde.of(NodeTimeline.class)));
        builder.addStateStore(DurableTimers.store(StoreNames.DUE));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.ACTIVITY),
                Serdes.String(),
                JsonSerde.of(NodeActivity.class)));

        // Activity reports are audited once, by the provisioner, which reads them too.
        Inputs in = new Inputs(builder, SERVICE, partitions, clock).auditedElsewhere(Topics.NODE_ACTIVITY_REPORTED);
        KStream<String, Object> inputs = input(in, Topics.SPOT_RECLAIM_REQUESTED)
                .merge(input(in, Topics.NODE_ACTIVITY_REPORTED))
                // A timeline ends when its node or its pool's nodes are removed; other node facts are skipped unparsed.
                .merge(asInput(
                        in.readKinds(
                                Topics.NODEPOOL_NODES_CHANGED,
                                NodeFact.KIND,
                                NodeFact.kinds(NodeFact.NodeRemoved.class, NodeFact.NodePoolReconciled.class)),
                        Topics.NODEPOOL_NODES_CHANGED));
        KStream<String, Outbound> outputs = inputs.process(
                () -> new TimelineProcessor(timeline, settings.tick(), clock),
                Named.as("preemption-timelines"),
                StoreNames.TIMELINES,
                StoreNames.DUE,
                StoreNames.ACTIVITY);
        Outbound.route(outputs, "write-outputs");
        return builder.build();
    }

    private static KStream<String, Object> input(Inputs in, Topic<?, ?> topic) {
        return asInput(in.read(topic), topic);
    }

    private static KStream<String, Object> asInput(KStream<String, ?> read, Topic<?, ?> topic) {
        return read.mapValues(v -> (Object) v, Named.as("as-input-" + topic.name()));
    }
}
