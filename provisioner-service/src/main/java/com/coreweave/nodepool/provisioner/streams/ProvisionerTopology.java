package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.kit.faults.FaultPoints;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.streams.ProcessorLayers;
import com.coreweave.nodepool.kit.streams.io.GlobalStoreUpdater;
import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Interpretation;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.store.SplitValues;
import com.coreweave.nodepool.kit.streams.time.DurableTimers;
import com.coreweave.nodepool.provisioner.config.ProvisionerSettings;
import com.coreweave.nodepool.provisioner.domain.PoolInput;
import com.coreweave.nodepool.provisioner.domain.PoolReconciler;
import com.coreweave.nodepool.provisioner.domain.fleet.FleetFaultPoints;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The provisioner's topology: the accepted spec, the ledger's grants, activity reports, spot preemption steps,
 * configuration requests, node alerts, node deletion requests and users' node changes of a pool (all keyed
 * {@code <org>/<pool>}, so co-partitioned) meet in one {@link ProvisionerProcessor} per partition, which owns the
 * pool's nodes and writes {@code nodepool-nodes-changed} and {@code nodepool-event-recorded}. Upstream releases
 * (written to every partition) reach every task. A second sub-topology, the demand planner ({@link DemandPlanner}),
 * turns pending workloads into each autoscaling pool's demand.
 */
@ApplicationScoped
public class ProvisionerTopology {

    public static final String SERVICE = PoolReconciler.COMPONENT;

    @Produces
    Topology topology(ProvisionerSettings settings, KafkaSettings kafka, InjectedFaults faults, Clock clock) {
        ProvisioningPolicy policy = settings.policy();
        policy = policy.withFaults(policy.faults().withInjected(faults));
        return build(policy, settings.timerInterval(), kafka.partitions(), clock);
    }

    /** Where an operator may arm a fault ({@code /admin/faults}, when fault injection is enabled). */
    @Produces
    FaultPoints faultPoints() {
        return FleetFaultPoints.POINTS;
    }

    /**
     * Built by a plain method so that a TopologyTestDriver test can use it without Quarkus; {@code partitions} is that
     * of the service's topics.
     */
    public static Topology build(ProvisioningPolicy policy, Duration timerInterval, int partitions, Clock clock) {
        StreamsBuilder builder = ProcessorLayers.streamsBuilder();
        // A pool's state, stored split (PoolShape) so that no entry grows with the pool. Cached: a pool changes with
        // each input and timer, often several times within one commit; the cache writes the last value once per commit.
        builder.addStateStore(SplitValues.layered(Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(StoreNames.POOLS),
                        Serdes.String(),
                        JsonSerde.of(PoolState.class))
                .withCachingEnabled()));
        builder.addStateStore(SplitValues.layered(Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(StoreNames.POOL_MEMBERS),
                        Serdes.String(),
                        JsonSerde.of(PoolMember.class))
                .withCachingEnabled()));
        builder.addStateStore(DurableTimers.store(StoreNames.TIMERS));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.RELEASES),
                Serdes.String(),
                JsonSerde.of(NodeReleasePublished.class)));

        Inputs in = new Inputs(builder, SERVICE, partitions, clock);
        // The provisioner acts on the generation in force: an invalid later one keeps the last valid one's nodes.
        KStream<String, PoolInput> specs = in.read(Topics.NODEPOOL_ACCEPTED)
                .mapValues(
                        accepted -> new PoolInput.SpecAccepted(accepted == null ? null : accepted.inForce()),
                        Named.as("as-spec"));
        KStream<String, PoolInput> grants =
                in.read(Topics.CAPACITY_CHECKED).mapValues(PoolInput.GrantsChecked::new, Named.as("as-grants"));
        KStream<String, PoolInput> activity = in.read(
                        Topics.NODE_ACTIVITY_REPORTED, Interpretation.asIs(), Topics.NODE_ACTIVITY_REPORTED_DLQ.name())
                .mapValues(PoolInput.ActivityReported::new, Named.as("as-activity"));
        KStream<String, PoolInput> preemptions = in.read(Topics.SPOT_PREEMPTION_PROGRESSED)
                .mapValues(PoolInput.PreemptionProgressed::new, Named.as("as-preemption"));
        KStream<String, PoolInput> configurations = in.read(
                        Topics.NODEPOOL_CONFIGURATION_REQUESTED,
                        Interpretation.asIs(),
                        Topics.NODEPOOL_CONFIGURATION_REQUESTED_DLQ.name())
                .mapValues(PoolInput.ConfigurationRequested::new, Named.as("as-configuration"));
        KStream<String, PoolInput> alerts = in.read(
                        Topics.NODE_ALERT_RAISED, Interpretation.asIs(), Topics.NODE_ALERT_RAISED_DLQ.name())
                .mapValues(PoolInput.AlertReported::new, Named.as("as-alert"));
        KStream<String, PoolInput> deletions = in.read(
                        Topics.NODE_DELETION_REQUESTED,
                        Interpretation.asIs(),
                        Topics.NODE_DELETION_REQUESTED_DLQ.name())
                .mapValues(PoolInput.DeletionRequested::new, Named.as("as-deletion"));
        KStream<String, PoolInput> changes = in.read(
                        Topics.NODE_CHANGE_REQUESTED, Interpretation.asIs(), Topics.NODE_CHANGE_REQUESTED_DLQ.name())
                .mapValues(PoolInput.ChangeRequested::new, Named.as("as-change"));
        KStream<String, PoolInput> demands =
                in.read(Topics.POOL_DEMAND_PLANNED).mapValues(PoolInput.DemandPlanned::new, Named.as("as-demand"));
        KStream<String, PoolInput> releases = in.read(Topics.NODE_RELEASE_PUBLISHED)
                .filter((train, release) -> release != null, Named.as("present-release"))
                .mapValues(PoolInput.ReleasePublished::new, Named.as("as-release"));

        KStream<String, Outbound> outputs = specs.merge(grants, Named.as("merge-grants"))
                .merge(activity, Named.as("merge-activity"))
                .merge(preemptions, Named.as("merge-preemptions"))
                .merge(configurations, Named.as("merge-configurations"))
                .merge(alerts, Named.as("merge-alerts"))
                .merge(deletions, Named.as("merge-deletions"))
                .merge(changes, Named.as("merge-changes"))
                .merge(demands, Named.as("merge-demands"))
                .merge(releases, Named.as("merge-releases"))
                .process(
                        () -> new ProvisionerProcessor(policy, timerInterval, clock),
                        Named.as("provisioner"),
                        StoreNames.POOLS,
                        StoreNames.POOL_MEMBERS,
                        StoreNames.TIMERS,
                        StoreNames.RELEASES);
        Outbound.route(outputs, "write-outputs");
        demandPlanner(builder, in, partitions, clock);
        return builder.build();
    }

    /**
     * The second sub-topology: workloads re-keyed by org meet the autoscaling pools' offers (written keyed by org) in
     * one {@link DemandPlanner} per partition, with the fleet's availability and the catalogue as global stores.
     */
    private static void demandPlanner(StreamsBuilder builder, Inputs in, int partitions, Clock clock) {
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.DEMAND_WORKLOADS),
                Serdes.String(),
                JsonSerde.of(PlannedWorkload.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.DEMAND_ORG_WORKLOADS), Serdes.String(), Serdes.Integer()));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.DEMAND_POOLS),
                Serdes.String(),
                JsonSerde.of(PlannedPool.class)));
        GlobalStoreUpdater.addTo(
                builder, Topics.FLEET_AVAILABILITY, StoreNames.FLEET_AVAILABILITY, FleetAvailability.class);
        GlobalStoreUpdater.addTo(
                builder, Topics.INSTANCE_TYPE_CATALOGUED, StoreNames.INSTANCE_TYPES, InstanceType.class);
        KStream<String, DemandInput> workloads = in.read(
                        Topics.WORKLOAD_PENDING, Interpretation.asIs(), Topics.WORKLOAD_PENDING_DLQ.name())
                .map(
                        (key, event) ->
                                KeyValue.pair(event.data().org(), DemandInput.workload(event.type(), event.data())),
                        Named.as("workload-by-org"))
                .repartition(Repartitioned.with(Serdes.String(), JsonSerde.of(DemandInput.class))
                        .withName("workload-pending-by-org")
                        .withNumberOfPartitions(partitions));
        KStream<String, DemandInput> offers =
                in.read(Topics.POOL_OFFERED).mapValues(DemandInput::offer, Named.as("as-offer"));
        KStream<String, Outbound> planned = workloads
                .merge(offers, Named.as("merge-offers"))
                .process(
                        () -> new DemandPlanner(clock),
                        Named.as("demand-planner"),
                        StoreNames.DEMAND_WORKLOADS,
                        StoreNames.DEMAND_ORG_WORKLOADS,
                        StoreNames.DEMAND_POOLS);
        Outbound.route(planned, "write-plans");
    }
}
