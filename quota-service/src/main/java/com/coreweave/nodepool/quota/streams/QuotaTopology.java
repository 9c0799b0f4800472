package com.coreweave.nodepool.quota.streams;

import com.coreweave.nodepool.kit.faults.FaultPoints;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import com.coreweave.nodepool.kit.streams.ProcessorLayers;
import com.coreweave.nodepool.kit.streams.io.Inputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.quota.domain.QuotaDecider;
import com.coreweave.nodepool.quota.domain.QuotaInput;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
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
 * The quota-service's topology: pools' demands (written by the api-service keyed by the quota they draw on) and the
 * operators' limits meet in one {@link QuotaProcessor} per quota key, the single writer of that quota's ledger, which
 * tells each decision to the capacity ledger of the pool's zone and type ({@code capacity-demanded}) and records its
 * events. Unreadable records of either input go to {@code quota-service-dlq}.
 */
@ApplicationScoped
public class QuotaTopology {

    public static final String SERVICE = "quota-service";

    @Produces
    Topology topology(KafkaSettings kafka, InjectedFaults faults, Clock clock) {
        return build(kafka.partitions(), clock, faults);
    }

    /** Where an operator may arm a fault ({@code /admin/faults}, when fault injection is enabled). */
    @Produces
    FaultPoints faultPoints() {
        return FaultPoints.of(QuotaDecider.QUOTA_CHECK);
    }

    /**
     * Built by a plain method so that a TopologyTestDriver test can use it without Quarkus. {@code partitions} is that
     * of the topics the service creates: a limit moved to its key's partition must meet the demands of that quota.
     */
    public static Topology build(int partitions, Clock clock) {
        return build(partitions, clock, InjectedFaults.OFF);
    }

    /** The same, with the faults an operator arms at {@link QuotaDecider#QUOTA_CHECK}. */
    public static Topology build(int partitions, Clock clock, InjectedFaults faults) {
        StreamsBuilder builder = ProcessorLayers.streamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(StoreNames.QUOTA_LEDGERS),
                Serdes.String(),
                JsonSerde.of(QuotaRecord.class)));
        Inputs in = new Inputs(builder, SERVICE, partitions, clock);

        KStream<String, QuotaInput> demands =
                in.read(Topics.QUOTA_DEMANDED).mapValues(QuotaInput::ofDemand, Named.as("as-demand-input"));
        KStream<String, QuotaInput> limits =
                in.read(Topics.QUOTA_LIMIT_SET).mapValues(QuotaInput::ofLimit, Named.as("as-limit-input"));
        KStream<String, Outbound> outputs = demands.merge(limits, Named.as("quota-inputs"))
                .process(
                        () -> new QuotaProcessor(clock, faults), Named.as("quota-processor"), StoreNames.QUOTA_LEDGERS);
        Outbound.route(outputs, "write-outputs");
        return builder.build();
    }
}
