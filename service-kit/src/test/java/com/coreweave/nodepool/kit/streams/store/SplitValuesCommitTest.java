package com.coreweave.nodepool.kit.streams.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.store.SplitValuesTest.Pool;
import java.util.List;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Split values in a real task with changelogged, cached stores: what one commit writes to the two changelogs. The
 * topology test driver commits after each input record.
 */
class SplitValuesCommitTest {

    private static final String APP = "split-values-test";
    private TopologyTestDriver driver;
    private TestInputTopic<String, String> changes;

    @AfterEach
    void close() {
        driver.close();
    }

    @Test
    void aCommitWritesTheHeadAndEachMemberThenOnlyWhatChanged() {
        start();

        changes.pipeInput("org/pool", "Pending m-1=Booting m-2=Booting");

        assertThat(changelog("heads")).containsExactly("org/pool=Pending");
        assertThat(changelog("members")).containsExactly("org/pool/m-1=Booting", "org/pool/m-2=Booting");

        changes.pipeInput("org/pool", "AtTarget m-1=Registered m-2=Booting");

        assertThat(changelog("heads")).containsExactly("org/pool=AtTarget");
        assertThat(changelog("members")).containsExactly("org/pool/m-1=Registered");
    }

    @Test
    void aPoolOfFiveThousandNodesWhoseOneNodeChangedWritesOneChangelogRecord() {
        start();
        StringBuilder nodes = new StringBuilder("AtTarget");
        for (int i = 1; i <= 5_000; i++) {
            nodes.append(" m-").append(i).append("=Registered");
        }
        changes.pipeInput("org/pool", nodes.toString());
        assertThat(changelog("heads")).containsExactly("org/pool=AtTarget");
        assertThat(changelog("members")).hasSize(5_000);

        changes.pipeInput(
                "org/pool",
                nodes.toString().replace("m-42=Registered", "m-42=Draining").replace(" m-4999=Registered", ""));

        assertThat(changelog("heads")).isEmpty();
        assertThat(changelog("members")).containsExactly("org/pool/m-42=Draining", "org/pool/m-4999=null");
    }

    private List<String> changelog(String store) {
        return driver
                .createOutputTopic(APP + "-" + store + "-changelog", new StringDeserializer(), new StringDeserializer())
                .readKeyValuesToList()
                .stream()
                .map(kv -> kv.key + "=" + kv.value)
                .toList();
    }

    private void start() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(store("heads"));
        builder.addStateStore(store("members"));
        builder.stream("changes", Consumed.with(Serdes.String(), Serdes.String()))
                .process(PoolWriter::new, "heads", "members");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        changes = driver.createInputTopic("changes", new StringSerializer(), new StringSerializer());
    }

    private static StoreBuilder<KeyValueStore<String, String>> store(String name) {
        return SplitValues.layered(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), Serdes.String())
                        .withCachingEnabled());
    }

    /** Each input is a pool's status followed by its nodes as {@code name=phase}. */
    private static final class PoolWriter implements Processor<String, String, Void, Void> {
        private SplitValues<Pool, String, String> pools;

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            pools = new SplitValues<>(
                    context.getStateStore("heads"),
                    context.getStateStore("members"),
                    SplitValuesTest.SHAPE,
                    100,
                    pool -> 1 + pool.nodes().size());
        }

        @Override
        public void process(Record<String, String> record) {
            String[] words = record.value().split(" ");
            SortedMap<String, String> nodes = new TreeMap<>();
            for (int i = 1; i < words.length; i++) {
                String[] node = words[i].split("=");
                nodes.put(node[0], node[1]);
            }
            pools.get(record.key());
            pools.put(record.key(), new Pool(words[0], nodes));
        }
    }
}
