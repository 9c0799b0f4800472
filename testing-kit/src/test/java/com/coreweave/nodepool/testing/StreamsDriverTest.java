package com.coreweave.nodepool.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** A topology on the test clock: the service's clock and the wall-clock punctuations move together. */
class StreamsDriverTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Consumed<String, String> TEXT = Consumed.with(Serdes.String(), Serdes.String());

    @Test
    void elapsingTimeMovesTheServicesClockAndFiresItsPunctuationsOnTheWay() {
        List<Instant> ticks = new ArrayList<>();
        try (StreamsDriver driver = StreamsDriver.start("driver-test", T0, clock -> {
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream(Topics.INSTANCE_TYPE_CATALOGUED.name(), TEXT)
                    .process(() -> new Processor<String, String, String, String>() {
                        @Override
                        public void init(ProcessorContext<String, String> context) {
                            context.schedule(
                                    Duration.ofMillis(100),
                                    PunctuationType.WALL_CLOCK_TIME,
                                    t -> ticks.add(clock.instant()));
                        }

                        @Override
                        public void process(Record<String, String> record) {
                            // Only the punctuation matters here.
                        }
                    });
            return builder.build();
        })) {
            driver.elapse(Duration.ofMillis(300), Duration.ofMillis(100));

            assertThat(driver.now()).isEqualTo(T0.plusMillis(300));
            assertThat(ticks).containsExactly(T0.plusMillis(100), T0.plusMillis(200), T0.plusMillis(300));
        }
    }

    @Test
    void theCatalogueAsTestsPublishItIsReadBackAsTheRegistryReadsIt() {
        try (StreamsDriver driver = StreamsDriver.start("driver-test", T0, clock -> {
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream(Topics.INSTANCE_TYPE_CATALOGUED.name(), TEXT)
                    .to("copied", Produced.with(Serdes.String(), Serdes.String()));
            return builder.build();
        })) {
            InstanceTypes.publish(driver, InstanceTypes.A100, InstanceTypes.GH200);

            List<InstanceType> copied = driver.output("copied").readValuesToList().stream()
                    .map(v -> Topics.INSTANCE_TYPE_CATALOGUED.valueFormat().decode(v.getBytes()))
                    .toList();
            assertThat(copied).containsExactly(InstanceTypes.A100, InstanceTypes.GH200);
        }
    }
}
