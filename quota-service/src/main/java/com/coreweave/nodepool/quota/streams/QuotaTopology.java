package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.streams.Inputs;
import com.coreweave.nodepool.kit.streams.Outbound;
import com.coreweave.nodepool.kit.streams.PromptCommits;
import com.coreweave.nodepool.quota.domain.QuotaInput;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * The quota-service's topology. Accepted pools are re-keyed by {@link PoolRouter} to the quota they draw on and meet
 * the operators' limits in one {@link QuotaProcessor} per quota key, the single writer of that quota's ledger.
 * Its decisions go straight to {@code quota-checked}, except those of a pool that moved between ledgers and the
 * tombstones, which go back to the pool's own partition, where {@link DecisionPublisher} writes them; its events go
 * straight to {@code nodepool-event-recorded}. Unreadable records of either input go to
 * {@code quota-service-dlq}.
 */
@ApplicationScoped
public class QuotaTopology {

  public static final String SERVICE = "quota-service";

  @Produces
  Topology topology(KafkaSettings kafka, Clock clock) {
    return build(kafka.partitions(), clock);
  }

  /**
   * Built by a plain method so that a TopologyTestDriver test can use it without Quarkus. {@code partitions} is
   * that of the topics the service creates: pool facts re-keyed by quota must land on the partition number of the
   * limits of that quota, and decisions re-keyed by pool on that of the pool's accepted facts.
   */
  public static Topology build(int partitions, Clock clock) {
    StreamsBuilder builder = PromptCommits.streamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.POOL_ROUTES),
        Serdes.String(), JsonSerde.of(PoolRoute.class)));
    builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.QUOTA_LEDGERS),
        Serdes.String(), JsonSerde.of(QuotaRecord.class)));
    Inputs in = new Inputs(builder, SERVICE, partitions, clock);

    KStream<String, QuotaInput> pools = in.read(Topics.NODEPOOL_ACCEPTED)
        .process(() -> new PoolRouter(clock), Named.as("route-pools-to-quota"), StoreNames.POOL_ROUTES)
        .repartition(Repartitioned.with(Serdes.String(), JsonSerde.of(QuotaInput.class))
            .withName("pools-by-quota-key").withNumberOfPartitions(partitions));
    KStream<String, QuotaInput> limits = in.read(Topics.QUOTA_LIMIT_SET)
        .mapValues(QuotaInput::ofLimit, Named.as("as-limit-input"));

    Map<String, KStream<String, Object>> decided = pools.merge(limits, Named.as("quota-inputs"))
        .process(() -> new QuotaProcessor(clock), Named.as("quota-processor"), StoreNames.QUOTA_LEDGERS)
        .split(Named.as("decided-"))
        .branch((pool, value) -> value instanceof PoolDecision, Branched.as("pool"))
        .defaultBranch(Branched.as("direct"));
    KStream<String, Outbound> published = decided.get("decided-pool")
        .mapValues(value -> (PoolDecision) value, Named.as("as-pool-decision"))
        .repartition(Repartitioned.with(Serdes.String(), JsonSerde.of(PoolDecision.class))
            .withName("decisions-by-pool").withNumberOfPartitions(partitions))
        .process(DecisionPublisher::new, Named.as("publish-decisions"), StoreNames.POOL_ROUTES);
    KStream<String, Outbound> direct = decided.get("decided-direct")
        .mapValues(value -> (Outbound) value, Named.as("as-outbound"));
    Outbound.route(published.merge(direct, Named.as("outputs")), "write-outputs");
    return builder.build();
  }
}
