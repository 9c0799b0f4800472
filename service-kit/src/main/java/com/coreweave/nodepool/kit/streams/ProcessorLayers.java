package com.coreweave.nodepool.kit.streams;

import com.coreweave.nodepool.kit.streams.commit.PromptCommits;
import com.coreweave.nodepool.kit.tracing.TracedProcessors;
import java.util.Map;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;

/**
 * Every processor of a service's topology in its layers: traced ({@link TracedProcessors}) around prompt commits
 * ({@link PromptCommits}). Kafka Streams takes one processor wrapper per topology, so this is it.
 */
public final class ProcessorLayers implements ProcessorWrapper {

    private final TracedProcessors traced = new TracedProcessors();
    private final PromptCommits prompt = new PromptCommits();

    /** The builder of a service's topology, whose processors get the layers; fixed when the topology is built. */
    public static StreamsBuilder streamsBuilder() {
        // Only the wrapper matters here: Kafka Streams replaces this config with the service's own when it starts.
        return new StreamsBuilder(new TopologyConfig(new StreamsConfig(Map.of(
                StreamsConfig.APPLICATION_ID_CONFIG, "topology",
                StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092",
                StreamsConfig.PROCESSOR_WRAPPER_CLASS_CONFIG, ProcessorLayers.class))));
    }

    @Override
    public <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
            String name, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
        return traced.wrapProcessorSupplier(name, prompt.wrapProcessorSupplier(name, supplier));
    }

    @Override
    public <KIn, VIn, VOut> WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> wrapFixedKeyProcessorSupplier(
            String name, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
        return traced.wrapFixedKeyProcessorSupplier(name, prompt.wrapFixedKeyProcessorSupplier(name, supplier));
    }
}
