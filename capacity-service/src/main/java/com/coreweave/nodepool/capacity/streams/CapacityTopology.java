package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.config.CapacitySettings;
import com.coreweave.nodepool.capacity.domain.CapacityLedger;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.LedgerInput;
import com.coreweave.nodepool.capacity.domain.LedgerState;
import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.streams.DeadLetterRouting;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.schema.events.NodeFact;
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
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The capacity-service's topology: quota decisions (through {@link PoolRouter}), node releases and operators' fleet
 * changes are re-keyed to {@code <zone>/<instanceType>} and meet in one {@link LedgerProcessor} per ledger, which
 * writes {@code capacity-checked}, {@code spot-reclaim-requested} and events.
 */
@ApplicationScoped
public class CapacityTopology {

  public static final String SERVICE = "capacity-service";

  @Produces
  Topology topology(CapacitySettings settings, Catalogue catalogue, Clock clock) {
    return build(settings, catalogue, clock);
  }

  /** Built by a plain method so that a TopologyTestDriver test can use it without Quarkus. */
  public static Topology build(CapacitySettings settings, Catalogue catalogue, Clock clock) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.POOL_ROUTES),
        Serdes.String(), JsonSerde.of(PoolRoute.class)));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.LEDGERS),
        Serdes.String(), JsonSerde.of(LedgerState.class)));
    String dlq = DeadLetters.serviceTopic(SERVICE);

    KStream<String, LedgerInput> demand = DeadLetterRouting.parse(builder, Topics.QUOTA_CHECKED.name(),
            Readers.quotaChecked(catalogue), dlq, SERVICE, clock)
        .process(() -> new PoolRouter(catalogue), Named.as("route-demand"), StoreNames.POOL_ROUTES);
    KStream<String, LedgerInput> releases = DeadLetterRouting.parse(builder, Topics.NODEPOOL_NODES_CHANGED.name(),
            Readers.nodeFacts(), dlq, SERVICE, clock)
        .filter((key, fact) -> fact instanceof NodeFact.NodeRemoved, Named.as("only-node-removed"))
        .selectKey((key, fact) -> fact.pool().zone() + "/" + fact.pool().instanceType(), Named.as("release-ledger"))
        .mapValues(fact -> (LedgerInput) new LedgerInput.Release((NodeFact.NodeRemoved) fact),
            Named.as("as-release"));
    KStream<String, LedgerInput> fleet = DeadLetterRouting.parse(builder, Topics.FLEET_CHANGE_REQUESTED.name(),
            Readers.fleetChanges(catalogue), dlq, SERVICE, clock)
        .mapValues(change -> (LedgerInput) new LedgerInput.FleetChange(change), Named.as("as-fleet-change"));

    KStream<String, LedgerInput> byLedger = demand.merge(releases, Named.as("merge-releases"))
        .merge(fleet, Named.as("merge-fleet"))
        .repartition(Repartitioned.with(Serdes.String(), JsonSerde.of(LedgerInput.class)).withName("by-ledger"));
    CapacityLedger ledger = new CapacityLedger(settings.maxMachines(), settings.rememberedFleetChanges());
    KStream<String, Outbound> outputs = byLedger.process(() -> new LedgerProcessor(ledger, clock),
        Named.as("ledger"), StoreNames.LEDGERS);
    Outbound.route(outputs, "write-outputs");
    return builder.build();
  }
}
