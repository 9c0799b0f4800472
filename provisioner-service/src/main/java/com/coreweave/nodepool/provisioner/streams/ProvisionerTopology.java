package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.streams.DeadLetterRouting;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.kit.streams.RecordReader;
import com.coreweave.nodepool.provisioner.config.ProvisionerSettings;
import com.coreweave.nodepool.provisioner.domain.ActivityReportReader;
import com.coreweave.nodepool.provisioner.domain.ConfigurationRequestReader;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.provisioner.domain.PoolReconciler;
import com.coreweave.nodepool.provisioner.domain.PoolState;
import com.coreweave.nodepool.provisioner.domain.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.ReleaseReader;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.Stores;

/**
 * The provisioner's topology: the accepted spec, the ledger's grants, activity reports, spot preemption steps and
 * configuration requests of a pool (all keyed {@code <org>/<pool>}, so co-partitioned) meet in one
 * {@link ProvisionerProcessor} per partition, which owns the pool's nodes and writes {@code nodepool-nodes-changed}
 * and {@code nodepool-event-recorded}. Upstream releases (written to every partition) reach every task.
 */
@ApplicationScoped
public class ProvisionerTopology {

  public static final String SERVICE = PoolReconciler.COMPONENT;

  @Produces
  Topology topology(ProvisionerSettings settings, Clock clock) {
    return build(settings.policy(), settings.timerInterval(), clock);
  }

  /** Built by a plain method so that a TopologyTestDriver test can use it without Quarkus. */
  public static Topology build(ProvisioningPolicy policy, Duration timerInterval, Clock clock) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.POOLS),
        Serdes.String(), JsonSerde.of(PoolState.class)));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.TIMERS),
        Serdes.String(), Serdes.String()));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.RELEASES),
        Serdes.String(), JsonSerde.of(NodeReleasePublished.class)));

    String dlq = DeadLetters.serviceTopic(SERVICE);
    KStream<String, PoolInput> specs = DeadLetterRouting.parse(builder, Topics.NODEPOOL_ACCEPTED.name(),
            RecordReader.poolFactOrTombstone(NodePoolAccepted.class, PoolRef::of), dlq, SERVICE, clock)
        .mapValues(PoolInput.SpecAccepted::new, Named.as("as-spec"));
    KStream<String, PoolInput> grants = DeadLetterRouting.parse(builder, Topics.CAPACITY_CHECKED.name(),
            RecordReader.poolFactOrTombstone(CapacityChecked.class, CapacityChecked::pool), dlq, SERVICE, clock)
        .mapValues(PoolInput.GrantsChecked::new, Named.as("as-grants"));
    KStream<String, PoolInput> activity = DeadLetterRouting.parse(builder, Topics.NODE_ACTIVITY_REPORTED.name(),
            new ActivityReportReader(), Topics.NODE_ACTIVITY_REPORTED_DLQ.name(), SERVICE, clock)
        .mapValues(PoolInput.ActivityReported::new, Named.as("as-activity"));
    KStream<String, PoolInput> preemptions = DeadLetterRouting.parse(builder,
            Topics.SPOT_PREEMPTION_PROGRESSED.name(), RecordReader.poolFact(PreemptionFact.class,
                PreemptionFact::pool), dlq, SERVICE, clock)
        .mapValues(PoolInput.PreemptionProgressed::new, Named.as("as-preemption"));
    KStream<String, PoolInput> configurations = DeadLetterRouting.parse(builder,
            Topics.NODEPOOL_CONFIGURATION_REQUESTED.name(), new ConfigurationRequestReader(),
            Topics.NODEPOOL_CONFIGURATION_REQUESTED_DLQ.name(), SERVICE, clock)
        .mapValues(PoolInput.ConfigurationRequested::new, Named.as("as-configuration"));
    KStream<String, PoolInput> releases = DeadLetterRouting.parse(builder, Topics.NODE_RELEASE_PUBLISHED.name(),
            new ReleaseReader(), dlq, SERVICE, clock)
        .mapValues(PoolInput.ReleasePublished::new, Named.as("as-release"));

    KStream<String, Outbound> outputs = specs.merge(grants, Named.as("merge-grants"))
        .merge(activity, Named.as("merge-activity"))
        .merge(preemptions, Named.as("merge-preemptions"))
        .merge(configurations, Named.as("merge-configurations"))
        .merge(releases, Named.as("merge-releases"))
        .process(() -> new ProvisionerProcessor(policy, timerInterval, clock), Named.as("provisioner"),
            StoreNames.POOLS, StoreNames.TIMERS, StoreNames.RELEASES);
    Outbound.route(outputs, "write-outputs");
    return builder.build();
  }
}
