package com.coreweave.nodepool.kit.streams.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.StateStoreProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each Kafka Streams internal the kit relies on, against the Kafka Streams of the build: when one fails after an
 * upgrade, its message names the kit mechanism that broke.
 */
class StreamsInternalsContractTest {

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> input;
    private TestOutputTopic<String, String> output;
    private final List<String> flushed = new ArrayList<>();
    private final List<String> hooks = new ArrayList<>();
    private boolean caching;
    private boolean hooked;
    private boolean streamsContext;
    private String forwarderNode;
    private boolean processed;
    private boolean sentAtCommit;

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    @Test
    void aCachedStoreIsFoundAsCachingUnderItsLayers() {
        start();

        assertThat(caching)
                .as("Kafka Streams no longer wraps a cached store in CachingKeyValueStore under "
                        + "WrappedStateStore layers: FlushedOutputs cannot hold outputs until the flush")
                .isTrue();
        assertThat(hooked)
                .as("CommitHookStore (a WrappedStateStore) is no longer found under Streams' layers: "
                        + "RecentValues, SplitValues and CommitOutputs cannot learn of a commit")
                .isTrue();
    }

    @Test
    void theCacheTellsItsFlushListenerEachKeyItWritesThrough() {
        start();

        input.pipeInput("pool-a", "Pending");

        assertThat(flushed)
                .as("CachingKeyValueStore.setFlushListener no longer reports the keys a commit flushes: "
                        + "FlushedOutputs never releases what it holds")
                .containsExactly("pool-a");
        assertThat(hooks)
                .as("Streams no longer calls flushCache() down a store's layers for a commit: "
                        + "RecentValues' and SplitValues' held writes are lost, CommitOutputs writes nothing")
                .isNotEmpty();
    }

    @Test
    void theCurrentNodeAndRecordContextAreReachable() {
        start();

        input.pipeInput("pool-a", "Pending");

        assertThat(streamsContext)
                .as("a processor's context is no longer an InternalProcessorContext: FlushedOutputs "
                        + "and CommitOutputs cannot forward outside process()")
                .isTrue();
        assertThat(forwarderNode)
                .as("InternalProcessorContext.currentNode() is no longer the initialising processor: "
                        + "flushed outputs would be forwarded from the wrong node")
                .isEqualTo("probe");
        assertThat(output.readKeyValuesToList())
                .as("forwarding as from a node, with a record context of no input, "
                        + "no longer reaches its children: FlushedOutputs and CommitOutputs lose their outputs")
                .containsExactly(KeyValue.pair("pool-a", "Pending"), KeyValue.pair("pool-a", "at commit"));
    }

    @Test
    void aStoreProviderGivesTheBytesUnderTheMeteringLayerToDecode() {
        start();
        input.pipeInput("pool-a", "Pending");
        input.pipeInput("pool-b", "AtTarget");
        StateStore views = (StateStore) driver.<String, String>getKeyValueStore("views");
        DecodedStoreType<Integer> lengths = new DecodedStoreType<>(bytes -> bytes.length);

        assertThat(lengths.accepts(views))
                .as("MeteredKeyValueStore no longer wraps the bytes store: DecodedStoreType "
                        + "cannot read a page's values from their stored bytes")
                .isTrue();
        ReadOnlyKeyValueStore<String, Integer> decoded = lengths.create(new OneStore(views), "views");
        assertThat(decoded.get("pool-a")).as("decoded from the stored bytes").isEqualTo(7);
        assertThat(decoded.get("pool-z")).as("a key not stored").isNull();
        List<KeyValue<String, Integer>> all = new ArrayList<>();
        try (KeyValueIterator<String, Integer> it = decoded.range("pool-", "pool-\uffff")) {
            it.forEachRemaining(all::add);
        }
        assertThat(all).containsExactly(KeyValue.pair("pool-a", 7), KeyValue.pair("pool-b", 8));
    }

    @Test
    void headersAreWritable() {
        var headers = StreamsInternals.headers(new RecordHeader("a", "1".getBytes(StandardCharsets.UTF_8)));
        headers.add("b", "2".getBytes(StandardCharsets.UTF_8));

        assertThat(headers.toArray())
                .as("RecordHeaders is no longer a writable Headers: dead letters lose their " + "reasons")
                .hasSize(2);
    }

    private void start() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(CommitHookStore.around(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("views"), Serdes.String(), Serdes.String())
                        .withCachingEnabled()));
        builder.stream("facts", Consumed.with(Serdes.String(), Serdes.String()))
                .process(Probe::new, Named.as("probe"), "views")
                .to("statuses", Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "streams-internals-contract");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        input = driver.createInputTopic("facts", new StringSerializer(), new StringSerializer());
        output = driver.createOutputTopic("statuses", new StringDeserializer(), new StringDeserializer());
    }

    /** A processor that reaches each internal from its init, as the kit's mechanisms do. */
    private final class Probe implements Processor<String, String, String, String> {
        private KeyValueStore<String, String> views;
        private ProcessorContext<String, String> context;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            views = context.getStateStore("views");
            caching = StreamsInternals.isCaching(views);
            CommitHookStore<?> hook = StoreLayers.find(views, CommitHookStore.class);
            hooked = hook != null;
            streamsContext = StreamsInternals.isStreamsContext(context);
            NodeForwarder<String> forwarder = NodeForwarder.of(context);
            forwarderNode = forwarder.nodeName();
            StreamsInternals.onCacheFlush(views, flushed::add);
            if (hook != null) {
                hook.beforeFlush(() -> {
                    hooks.add("flush");
                    if (processed && !sentAtCommit) {
                        sentAtCommit = true;
                        forwarder.forwardWithoutInput(List.of(new Record<>("pool-a", "at commit", 0L)));
                    }
                });
            }
        }

        @Override
        public void process(Record<String, String> record) {
            views.put(record.key(), record.value());
            processed = true;
            context.forward(record);
        }
    }

    /** A store provider of one partition's store, as Streams gives one for {@code withPartition}. */
    private record OneStore(StateStore store) implements StateStoreProvider {
        @Override
        @SuppressWarnings("unchecked")
        public <T> List<T> stores(String storeName, QueryableStoreType<T> type) {
            return List.of((T) store);
        }
    }
}
