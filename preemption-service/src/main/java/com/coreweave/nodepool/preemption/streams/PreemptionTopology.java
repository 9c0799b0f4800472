package com.coreweave.nodepool.preemption.streams;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.streams.DeadLetterRouting;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.preemption.config.PreemptionSettings;
import com.coreweave.nodepool.preemption.domain.NodeActivity;
import com.coreweave.nodepool.preemption.domain.NodeTimeline;
import com.coreweave.nodepool.preemption.domain.PreemptionTimeline;
import com.coreweave.nodepool.schema.topics.DeadLetters;
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
 * The preemption-service's topology: reclaim requests from the capacity-service, activity reports and the
 * provisioner's node facts (all keyed {@code <org>/<pool>}, co-partitioned) meet in one {@link TimelineProcessor}
 * per partition, which writes {@code spot-preemption-progressed} and the Warning events. Records it cannot read go
 * to {@code preemption-service-dlq}.
 */
@ApplicationScoped
public class PreemptionTopology {

  public static final String SERVICE = "preemption-service";

  @Produces
  Topology topology(PreemptionSettings settings, Clock clock) {
    return build(settings, clock);
  }

  /** Built by a plain method so that a TopologyTestDriver test can use it without Quarkus. */
  public static Topology build(PreemptionSettings settings, Clock clock) {
    PreemptionTimeline timeline = new PreemptionTimeline(settings.warningPeriod(), settings.removalDeadline(),
        settings.defaultGrace(), settings.finishedRetention());
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.TIMELINES),
        Serdes.String(), JsonSerde.of(NodeTimeline.class)));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.DUE),
        Serdes.String(), Serdes.String()));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.ACTIVITY),
        Serdes.String(), JsonSerde.of(NodeActivity.class)));

    String dlq = DeadLetters.serviceTopic(SERVICE);
    KStream<String, Object> inputs =
        input(builder, Topics.SPOT_RECLAIM_REQUESTED.name(), InputReaders.reclaim(), dlq, clock)
            .merge(input(builder, Topics.NODE_ACTIVITY_REPORTED.name(), InputReaders.activity(), dlq, clock))
            .merge(input(builder, Topics.NODEPOOL_NODES_CHANGED.name(), InputReaders.nodeFact(), dlq, clock));
    KStream<String, Outbound> outputs = inputs.process(
        () -> new TimelineProcessor(timeline, settings.tick(), clock), Named.as("preemption-timelines"),
        StoreNames.TIMELINES, StoreNames.DUE, StoreNames.ACTIVITY);
    Outbound.route(outputs, "write-outputs");
    return builder.build();
  }

  private static <T> KStream<String, Object> input(StreamsBuilder builder, String topic, RecordReader<T> reader,
                                                   String dlq, Clock clock) {
    return DeadLetterRouting.parse(builder, topic, reader, dlq, SERVICE, clock)
        .mapValues(v -> (Object) v, Named.as("as-input-" + topic));
  }
}
