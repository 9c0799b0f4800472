package com.coreweave.nodepool.kit.streams.commit;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.health.StreamsDeparture;
import com.coreweave.nodepool.kit.kafka.KafkaSecurity;
import com.coreweave.nodepool.localkafka.EmbeddedKafka;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stopping instance hands its tasks over at once ({@code StreamsDeparture} with the main consumers of
 * {@link PromptCommitClients}), against a real broker: two instances of one Streams app with a session far longer than
 * the test waits, so only a departure from the group, not its expiry, moves the tasks.
 */
class StreamsDepartureTest {

    private static final Duration SESSION = Duration.ofSeconds(60);

    private final String app = "departure-" + UUID.randomUUID().toString().substring(0, 8);
    private final EmbeddedKafka kafka = EmbeddedKafka.shared();
    private KafkaStreams first;
    private KafkaStreams second;

    @AfterEach
    void stop() {
        for (KafkaStreams streams : new KafkaStreams[] {first, second}) {
            if (streams != null) {
                streams.close(Duration.ofSeconds(10));
            }
        }
    }

    @Test
    void theOtherInstanceTakesEveryTaskLongBeforeTheStoppingOnesSessionWouldExpire() throws Exception {
        // given two instances sharing the two partitions
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(app + "-in", 2, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        first = start();
        second = start();
        awaitUntil(Duration.ofSeconds(60), () -> tasks(first) == 1 && tasks(second) == 1);
        StreamsDeparture departure = new StreamsDeparture(first, Duration.ofSeconds(10));
        long start = System.nanoTime();
        // when the first begins to stop
        departure.leave("in the test");
        // then
        awaitUntil(SESSION.dividedBy(3), () -> tasks(second) == 2);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SESSION.dividedBy(3));
        assertThat(tasks(first)).isZero();
    }

    private KafkaStreams start() throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(app + "-in", Consumed.with(Serdes.String(), Serdes.String()))
                .foreach((key, value) -> {});
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createTempDirectory("departure").toString());
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), (int) SESSION.toMillis());
        KafkaStreams streams =
                new KafkaStreams(builder.build(), props, PromptCommitClientsTest.clients(KafkaSecurity.none(), true));
        streams.start();
        return streams;
    }

    private static void awaitUntil(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("within " + timeout).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private static long tasks(KafkaStreams streams) {
        return streams.metadataForLocalThreads().stream()
                .mapToLong(thread -> thread.activeTasks().size())
                .sum();
    }
}
