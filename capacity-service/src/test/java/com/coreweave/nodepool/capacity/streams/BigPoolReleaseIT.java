package com.coreweave.nodepool.capacity.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.Inputs;
import com.coreweave.nodepool.kit.streams.commit.PromptCommits;
import com.coreweave.nodepool.localkafka.EmbeddedKafka;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.topics.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * Issue 25 measured: a pool of the largest size the API accepts is granted its 5,000 machines, then deleted, and the
 * provisioner releases its grants as it does, 5,000 {@code NodeRemoved} in one transaction. The capacity-service's
 * topology runs in Kafka Streams on a broker of its own, exactly-once, committing as the service does (every
 * {@code commit.interval.ms} with a backlog, at once when caught up), so what it writes is what the service writes.
 * Prints the wall and CPU time of the releases and what they wrote to {@code capacity-checked} and to the ledger
 * store's changelog; asserts on records and bytes, not on time.
 */
class BigPoolReleaseIT {

    static final int NODES = Limits.MAX_TARGET_NODES;
    static final String APP = "capacity-big-pool";
    static final String LEDGER = "US-EAST-04A/gd-8xa100-i128";
    static final PoolRef POOL =
            new PoolRef("demo", "large", "uid-large", 1, "US-EAST-04A", "gd-8xa100-i128", "default");
    static final String CHANGELOG = APP + "-" + StoreNames.LEDGERS + "-changelog";
    static final Duration WAIT = Duration.ofMinutes(10);

    @Test
    void releasingEveryGrantOfAFiveThousandNodePoolWritesAFewSmallRecordsNotOneLargeOnePerRelease() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
                KafkaProducer<String, byte[]> producer = producer(kafka)) {
            admin.createTopics(List.of(
                                    Topics.CAPACITY_DEMANDED.name(),
                                    Topics.NODEPOOL_NODES_CHANGED.name(),
                                    Topics.FLEET_CHANGE_REQUESTED.name(),
                                    Topics.INSTANCE_TYPE_CATALOGUED.name(),
                                    Topics.CAPACITY_CHECKED.name(),
                                    Topics.SPOT_RECLAIM_REQUESTED.name(),
                                    Topics.NODEPOOL_EVENT_RECORDED.name(),
                                    Topics.FLEET_AVAILABILITY.name(),
                                    "capacity-service-dlq")
                            .stream()
                            .map(name -> new NewTopic(name, 1, (short) 1))
                            .toList())
                    .all()
                    .get();
            try (KafkaStreams streams = streams(kafka)) {
                streams.start();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(
                        Topics.FLEET_CHANGE_REQUESTED.name(),
                        LEDGER,
                        Json.bytes(new FleetChangeRequested(
                                "size",
                                "US-EAST-04A",
                                "gd-8xa100-i128",
                                FleetChangeRequested.Operation.SET_SIZE,
                                NODES,
                                null,
                                Instant.now()))));
                producer.send(demand(NODES));
                producer.commitTransaction();
                List<Grant> grants =
                        awaitChecked(kafka, c -> c.grants().size() == NODES).grants();
                // Deleting: quota admits the pool nothing, then the provisioner removes every node at once.
                producer.beginTransaction();
                producer.send(demand(0));
                producer.commitTransaction();
                awaitChecked(kafka, c -> c.requestedNodes() == 0);
                long checkedFrom = end(admin, Topics.CAPACITY_CHECKED.name());
                long changelogFrom = end(admin, CHANGELOG);

                long cpu = streamThreadsCpu();
                long wall = System.nanoTime();
                producer.beginTransaction();
                for (Grant grant : grants) {
                    producer.send(new ProducerRecord<>(
                            Topics.NODEPOOL_NODES_CHANGED.name(),
                            POOL.key().toString(),
                            Json.bytes(
                                    new NodeFact.NodeRemoved(POOL, node(grant), grant, "PoolDeleted", Instant.now()))));
                }
                producer.commitTransaction();
                awaitChecked(kafka, c -> c.grants().isEmpty());
                Duration took = Duration.ofNanos(System.nanoTime() - wall);
                Duration cpuTook = Duration.ofNanos(streamThreadsCpu() - cpu);

                Written checked = written(kafka, Topics.CAPACITY_CHECKED.name(), checkedFrom);
                Written changelog = written(kafka, CHANGELOG, changelogFrom);
                System.out.printf(
                        "Releasing the %,d grants of one pool: %,d ms wall, %,d ms CPU of the stream thread;%n"
                                + "  %-40s %s%n  %-40s %s%n",
                        NODES,
                        took.toMillis(),
                        cpuTook.toMillis(),
                        Topics.CAPACITY_CHECKED.name(),
                        checked,
                        CHANGELOG,
                        changelog);

                assertThat(checked.records())
                        .as("capacity-checked records: a few commits' worth, not one per release")
                        .isLessThanOrEqualTo(50);
                assertThat(checked.bytes())
                        .as("capacity-checked bytes, far below %,d releases of a 300 KiB record", NODES)
                        .isLessThan(NODES * 300L * 1024 / 100);
                assertThat(changelog.largest())
                        .as("no changelog record grows with the pool")
                        .isLessThanOrEqualTo(1024);
                assertThat(changelog.bytes())
                        .as("the changelog: about a record per release")
                        .isLessThanOrEqualTo(2L * NODES * 1024);
            }
        }
    }

    /**
     * Records written to a topic from an offset on, committed only: how many, their bytes (key + value), the largest.
     */
    record Written(int records, long bytes, int largest) {
        @Override
        public String toString() {
            return String.format("%,6d records, %,13d bytes, largest %,9d bytes", records, bytes, largest);
        }
    }

    private static Written written(EmbeddedKafka kafka, String topic, long from) {
        try (Consumer<byte[], byte[]> consumer = consumer(kafka)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seek(partition, from);
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            int records = 0;
            long bytes = 0;
            int largest = 0;
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    int size = (record.key() == null ? 0 : record.key().length)
                            + (record.value() == null ? 0 : record.value().length);
                    records++;
                    bytes += size;
                    largest = Math.max(largest, size);
                }
            }
            return new Written(records, bytes, largest);
        }
    }

    /** Reads {@code capacity-checked} until the pool's latest record matches, and returns it. */
    private static CapacityChecked awaitChecked(EmbeddedKafka kafka, Predicate<CapacityChecked> expected) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        try (Consumer<byte[], byte[]> consumer = consumer(kafka)) {
            TopicPartition partition = new TopicPartition(Topics.CAPACITY_CHECKED.name(), 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            CapacityChecked latest = null;
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    latest = record.value() == null ? null : Json.read(record.value(), CapacityChecked.class);
                }
                if (latest != null && expected.test(latest)) {
                    return latest;
                }
            }
            throw new AssertionError("capacity-checked did not get there in " + WAIT + "; last: " + latest);
        }
    }

    private static long end(Admin admin, String topic) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        return admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                .all()
                .get()
                .get(partition)
                .offset();
    }

    /** CPU time of this JVM's stream threads so far. */
    private static long streamThreadsCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = 0;
        for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains("StreamThread")) {
                cpu += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return cpu;
    }

    private static KafkaStreams streams(EmbeddedKafka kafka) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createTempDirectory("big-pool-state").toString());
        return new KafkaStreams(
                CapacityTopology.build(
                        new CapacityTopologyTest.Defaults(),
                        1,
                        Catalogue.fromResource("instance-types.yaml"),
                        Clock.systemUTC()),
                props,
                new ServiceClients());
    }

    /** The clients the service's stream threads get, which commit at once when caught up (PromptCommits). */
    static final class ServiceClients implements KafkaClientSupplier {
        private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

        @Override
        public Admin getAdmin(Map<String, Object> config) {
            return Admin.create(config);
        }

        @Override
        public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            return new PromptCommits.SendWatchingProducer(config, registry);
        }

        @Override
        public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
            return new PromptCommits.PollWatchingConsumer(config);
        }

        @Override
        public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
            return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }

        @Override
        public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
            return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
    }

    private static ProducerRecord<String, byte[]> demand(int admitted) {
        return new ProducerRecord<>(
                Topics.CAPACITY_DEMANDED.name(),
                LEDGER,
                Json.bytes(CapacityDemanded.of(Inputs.quota(POOL, admitted, Instant.now()))));
    }

    private static Node node(Grant grant) {
        return new Node("v1", "Node", new Node.Meta(grant.machine(), null, null, null), null, null);
    }

    private static KafkaProducer<String, byte[]> producer(EmbeddedKafka kafka) {
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        "big-pool-" + UUID.randomUUID()),
                new StringSerializer(),
                new ByteArraySerializer());
        producer.initTransactions();
        return producer;
    }

    private static Consumer<byte[], byte[]> consumer(EmbeddedKafka kafka) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                        4 * 1024 * 1024),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }
}
