package com.coreweave.nodepool.kit.streams.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Outputs made at the commit: one input that changes keys several times stands for a commit (the topology test driver
 * commits after each input record), and leaves one output per key, made from what the processor holds then, with the
 * store's writes.
 */
class CommitOutputsTest {

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> changes;
    private TestOutputTopic<String, String> totals;

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    @Test
    void aCommitWritesOneOutputPerKeyItChangedMadeAtTheCommitInTheOrderTheKeysLastChanged() {
        start(CommitOutputs.layered(store()));

        changes.pipeInput("ledger", "a+1,b+2,a+3");

        assertThat(totals.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + kv.value)
                .containsExactly("b=2 of 6", "a=4 of 6");
        assertThat(driver.getKeyValueStore("totals").get("a")).isEqualTo("4");

        changes.pipeInput("ledger", "b+1");

        assertThat(totals.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + kv.value)
                .containsExactly("b=3 of 7");
    }

    @Test
    void refusesAStoreWithoutTheLayer() {
        assertThatThrownBy(() -> start(store()))
                .isInstanceOf(StreamsException.class)
                .hasRootCauseInstanceOf(IllegalArgumentException.class);
    }

    private void start(StoreBuilder<KeyValueStore<String, String>> store) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(store);
        builder.stream("changes", Consumed.with(Serdes.String(), Serdes.String()))
                .process(Totals::new, "totals")
                .to("totals", Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "commit-outputs-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        changes = driver.createInputTopic("changes", new StringSerializer(), new StringSerializer());
        totals = driver.createOutputTopic("totals", new StringDeserializer(), new StringDeserializer());
    }

    private static StoreBuilder<KeyValueStore<String, String>> store() {
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("totals"), Serdes.String(), Serdes.String())
                .withCachingEnabled();
    }

    /**
     * Adds to per-key totals ({@code a+1,b+2}); at the commit, each key changed since the last says its total and the
     * sum of all totals, which only the commit knows.
     */
    private static final class Totals implements Processor<String, String, String, String> {
        private final Map<String, Integer> changed = new LinkedHashMap<>();
        private KeyValueStore<String, String> store;
        private CommitOutputs<String> commitOutputs;
        private int sum;

        @Override
        public void init(ProcessorContext<String, String> context) {
            store = context.getStateStore("totals");
            commitOutputs = CommitOutputs.atCommit(context, store, this::outputs);
        }

        @Override
        public void process(Record<String, String> record) {
            for (String change : record.value().split(",")) {
                String key = change.substring(0, change.indexOf('+'));
                int by = Integer.parseInt(change.substring(change.indexOf('+') + 1));
                String total = store.get(key);
                int next = (total == null ? 0 : Integer.parseInt(total)) + by;
                store.put(key, Integer.toString(next));
                sum += by;
                changed.remove(key);
                changed.put(key, next);
                commitOutputs.holding(key);
            }
        }

        private List<Record<String, String>> outputs() {
            List<Record<String, String>> records = new ArrayList<>();
            changed.forEach((key, total) -> records.add(new Record<>(key, total + " of " + sum, 0L)));
            changed.clear();
            return records;
        }
    }
}
