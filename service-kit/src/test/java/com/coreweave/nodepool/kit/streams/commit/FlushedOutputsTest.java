package com.coreweave.nodepool.kit.streams.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pool's status written several times within one commit leaves one record, the last, at the commit. The topology test
 * driver commits after each input record, so one input that changes a pool three times stands for a commit.
 */
class FlushedOutputsTest {

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> facts;
    private TestOutputTopic<String, String> statuses;

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    @Test
    void aPoolChangedThreeTimesInOneCommitPublishesOnlyItsLastStatus() {
        start(true);

        facts.pipeInput("pool-a", "Pending,Provisioning,AtTarget");

        assertThat(statuses.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + kv.value)
                .containsExactly("pool-a=AtTarget");
    }

    @Test
    void eachCommitPublishesTheLastStatusOfEveryPoolItChanged() {
        start(true);

        facts.pipeInput("pool-a", "Pending,Provisioning");
        facts.pipeInput("pool-b", "Pending");
        facts.pipeInput("pool-a", "AtTarget");

        assertThat(statuses.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + kv.value)
                .containsExactly("pool-a=Provisioning", "pool-b=Pending", "pool-a=AtTarget");
    }

    @Test
    void aHeldStatusForwardedNowComesBeforeTheOutputThatMustFollowIt() {
        start(true);

        facts.pipeInput("pool-a", "Deleting,!delete");

        assertThat(statuses.readKeyValuesToList())
                .extracting(kv -> kv.key + "=" + kv.value)
                .containsExactly("pool-a=Deleting", "pool-a=null");
    }

    @Test
    void aStoreWithoutACacheIsRefusedAtInit() {
        // Nothing would ever release a held output: refused, where it used to forward every status at once.
        assertThatThrownBy(() -> start(false))
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("views has no record cache");
    }

    @Test
    void aMockContextIsRefused() {
        var context = new MockProcessorContext<String, String>();
        // A cached store cannot even be initialised with a mock context: built, not initialised.
        KeyValueStore<String, String> views = store(true).withLoggingDisabled().build();

        assertThatThrownBy(() -> FlushedOutputs.of(context, views))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Kafka Streams' own processor context");
    }

    private void start(boolean cached) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(store(cached));
        builder.stream("facts", Consumed.with(Serdes.String(), Serdes.String()))
                .process(StatusPublisher::new, "views")
                .to("statuses", Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "flushed-outputs-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        driver = new TopologyTestDriver(builder.build(), props);
        facts = driver.createInputTopic("facts", new StringSerializer(), new StringSerializer());
        statuses = driver.createOutputTopic("statuses", new StringDeserializer(), new StringDeserializer());
    }

    private static StoreBuilder<KeyValueStore<String, String>> store(boolean cached) {
        var builder =
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("views"), Serdes.String(), Serdes.String());
        return cached ? builder.withCachingEnabled() : builder;
    }

    /** Each input lists the statuses a pool passes through; {@code !delete} deletes it, as a removed pool is. */
    private static final class StatusPublisher implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, String> views;
        private FlushedOutputs<String> statuses;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            views = context.getStateStore("views");
            statuses = FlushedOutputs.of(context, views);
        }

        @Override
        public void process(Record<String, String> record) {
            for (String status : record.value().split(",")) {
                if (status.equals("!delete")) {
                    statuses.forwardNow(record.key());
                    views.delete(record.key());
                    context.forward(record.withValue(null));
                } else {
                    views.put(record.key(), status);
                    statuses.hold(record.withValue(status));
                }
            }
        }
    }
}
