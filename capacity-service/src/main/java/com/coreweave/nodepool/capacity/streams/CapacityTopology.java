package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.config.CapacitySettings;
import com.coreweave.nodepool.capacity.domain.CapacityLedger;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.LedgerInput;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.kit.faults.FaultPoints;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.streams.ProcessorLayers;
import com.coreweave.nodepool.kit.streams.commit.CommitOutputs;
import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The capacity-service's topology: pools' demands arrive keyed by ledger ({@code capacity-demanded}, written so by the
 * quota-service); node releases and operators' fleet changes are re-keyed to {@code <zone>/<instanceType>}; all meet in
 * one {@link LedgerProcessor} per ledger, which writes {@code capacity-checked}, {@code spot-reclaim-requested} and
 * events.
 */
@ApplicationScoped
public class CapacityTopology {

    public static final String SERVICE = "capacity-service";

    @Produces
    Topology topology(
            CapacitySettings settings, KafkaSettings kafka, Catalogue catalogue, InjectedFaults faults, Clock clock) {
        return build(settings, kafka.partitions(), catalogue, clock, faults);
    }

    /** Where an operator may arm a fault ({@code /admin/faults}, when fault injection is enabled). */
    @Produces
    FaultPoints faultPoints() {
        return FaultPoints.of(CapacityLedger.CAPACITY_CHECK);
    }

    /**
     * Built by a plain method so that a TopologyTestDriver test can use it without Quarkus; {@code partitions} is that
     * of the service's topics.
     */
    public static Topology build(CapacitySettings settings, int partitions, Catalogue catalogue, Clock clock) {
        return build(settings, partitions, catalogue, clock, InjectedFaults.OFF);
    }

    /** The same, with the faults an operator arms at {@link CapacityLedger#CAPACITY_CHECK}. */
    public static Topology build(
            CapacitySettings settings, int partitions, Catalogue catalogue, Clock clock, InjectedFaults faults) {
        StreamsBuilder builder = ProcessorLayers.streamsBuilder();
        // Cached: a ledger's head and a pool's demand change with each input, often several times within one commit;
        // the cache writes each record's last value to the changelog once per commit. Layered: the commit's flush of it
        // is when the pools' capacity-checked are written (LedgerProcessor).
        builder.addStateStore(CommitOutputs.layered(Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(StoreNames.LEDGERS),
                        Serdes.String(),
                        JsonSerde.of(LedgerRecord.class)))
                .withCachingEnabled());
        Inputs in = new Inputs(builder, SERVICE, partitions, clock);

        // Already on its ledger's partition. Demand for a type not offered in the zone is always 0 (the reader refuses
        // more): no ledger serves it.
        KStream<String, LedgerInput> demand = in.read(Topics.CAPACITY_DEMANDED, Readers.capacityDemanded(catalogue))
                .filter((ledger, demanded) -> served(catalogue, ZoneTypeKey.parse(ledger)), Named.as("served-demand"))
                .mapValues(LedgerInput::of, Named.as("as-demand"));
        // Only a removed node releases capacity: the other node facts (most of them) are skipped unparsed.
        KStream<String, LedgerInput> releases = in.readKinds(
                        Topics.NODEPOOL_NODES_CHANGED, NodeFact.KIND, NodeFact.kinds(NodeFact.NodeRemoved.class))
                .filter((key, fact) -> fact instanceof NodeFact.NodeRemoved, Named.as("only-node-removed"))
                .selectKey(
                        (key, fact) -> fact.pool().zone() + "/" + fact.pool().instanceType(),
                        Named.as("release-ledger"))
                .mapValues(
                        fact -> (LedgerInput) new LedgerInput.Release((NodeFact.NodeRemoved) fact),
                        Named.as("as-release"));
        KStream<String, LedgerInput> fleet = in.read(Topics.FLEET_CHANGE_REQUESTED, Readers.fleetChanges(catalogue))
                .mapValues(change -> (LedgerInput) new LedgerInput.FleetChange(change), Named.as("as-fleet-change"));

        // The catalogue's owner reads its own topic back only to dead-letter what it would never have written: the
        // api-service's global store of it can only skip such a record (docs/flow.md).
        in.read(Topics.INSTANCE_TYPE_CATALOGUED);

        KStream<String, LedgerInput> byLedger = releases.merge(fleet, Named.as("merge-fleet"))
                .repartition(Repartitioned.with(Serdes.String(), JsonSerde.of(LedgerInput.class))
                        .withName("by-ledger")
                        .withNumberOfPartitions(partitions))
                .merge(demand, Named.as("merge-demand"));
        CapacityLedger ledger = new CapacityLedger(settings.maxMachines(), settings.rememberedFleetChanges(), faults);
        KStream<String, Outbound> outputs =
                byLedger.process(() -> new LedgerProcessor(ledger, clock), Named.as("ledger"), StoreNames.LEDGERS);
        Outbound.route(outputs, "write-outputs");
        return builder.build();
    }

    private static boolean served(Catalogue catalogue, ZoneTypeKey ledger) {
        return catalogue.refusal(ledger.zone(), ledger.instanceType()).isEmpty();
    }
}
