package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ChildProcess;
import com.coreweave.nodepool.testing.ClientSecurity;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The yardstick: {@link BaselineChain} (k exactly-once pass-through hops, grouped by service like the create path) in
 * one child JVM on the stack's broker, with the services' Streams settings, driven like the pipeline: the same records
 * all at once for throughput and cost, and one at a time for latency. One JVM rather than k keeps the yardstick's own
 * JIT and heap from loading the two cores; the services' JVMs are part of what is measured.
 */
final class Baseline {

    /** What the chain did: throughput and cost for {@code records} at once, latency one at a time. */
    record Result(
            List<CreatePath.Hop> hops,
            int apps,
            int records,
            double seconds,
            PhaseCost cost,
            Samples endToEnd,
            Samples firstHop,
            Map<String, String> settings) {

        double rate() {
            return records / seconds;
        }
    }

    /** The processes whose CPU the baseline's cost counts. */
    static final List<String> PROCESSES = List.of(StackProcesses.KAFKA, StackProcesses.BASELINE);

    private static final Duration START = Duration.ofSeconds(120);

    private final String bootstrap;
    private final Admin admin;
    private final BrokerWrites broker;
    private final Path log;
    private final Map<String, Long> firstHop = new ConcurrentHashMap<>();
    private final Map<String, Long> lastHop = new ConcurrentHashMap<>();
    private Path stateDir;
    private ChildProcess child;
    private KafkaConsumer<String, byte[]> consumer;
    private Thread follower;
    private int k;

    Baseline(String bootstrap, Admin admin, BrokerWrites broker, Path log) {
        this.bootstrap = bootstrap;
        this.admin = admin;
        this.broker = broker;
        this.log = log;
    }

    /**
     * The Streams settings every service shares (service-kit's {@code microprofile-config.properties}, the
     * {@code kafka-streams.*} keys without placeholders, but for RocksDB's), with the run's
     * {@code -Dbench.service.all.kafka-streams.*} experiments on top, so that the chain always runs as the services do.
     */
    static Map<String, String> servicesStreamsSettings(Path projectRoot, Map<String, String> experiments) {
        Properties shared = new Properties();
        Path file = projectRoot.resolve("service-kit/src/main/resources/META-INF/microprofile-config.properties");
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            shared.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the services' shared settings in " + file, e);
        }
        Map<String, String> settings = new TreeMap<>();
        shared.stringPropertyNames().stream()
                .filter(key -> key.startsWith("kafka-streams."))
                .filter(key -> !shared.getProperty(key).contains("${"))
                // The chain's hops keep no stores, and the services' RocksDB settings class is not on its classpath.
                .filter(key -> !key.equals("kafka-streams.rocksdb.config.setter"))
                // Nor are service-kit's dead-letter handlers; they act only on a record that fails, which a copy never
                // does.
                .filter(key -> !key.endsWith(".exception.handler"))
                .forEach(key -> settings.put(key.substring("kafka-streams.".length()), shared.getProperty(key)));
        experiments.forEach((key, value) -> {
            if (key.startsWith("all.kafka-streams.")) {
                settings.put(key.substring("all.kafka-streams.".length()), value);
            }
        });
        return settings;
    }

    /** Runs the whole baseline: start the chain, warm it up, measure, stop it. */
    Result run(
            List<CreatePath.Hop> hops,
            Map<String, String> settings,
            int records,
            int oneAtATime,
            List<String> keys,
            List<String> values)
            throws Exception {
        start(hops, settings);
        send("warm", Math.min(100, records), keys, values);
        awaitLast("warm", Math.min(100, records));

        PhaseCost.Meter meter = PhaseCost.start("baseline", broker);
        long begin = System.nanoTime();
        send("b", records, keys, values);
        awaitLast("b", records);
        double seconds = (System.nanoTime() - begin) / 1e9;
        PhaseCost cost = meter.stop(records);

        Samples endToEnd = new Samples();
        Samples first = new Samples();
        try (KafkaProducer<String, String> producer = Requests.producer(bootstrap)) {
            for (int i = 0; i < oneAtATime; i++) {
                String key = "one-" + keys.get(i % keys.size());
                long sent = System.nanoTime();
                producer.send(new ProducerRecord<>(BaselineChain.topic(0), key, values.get(i % values.size())))
                        .get();
                long end = await(lastHop, key);
                if (end == 0) {
                    endToEnd.error();
                    continue;
                }
                endToEnd.add(end - sent);
                first.add(await(firstHop, key) - sent);
            }
        }
        return new Result(
                hops,
                (int) hops.stream().map(CreatePath.Hop::service).distinct().count(),
                records,
                seconds,
                cost,
                endToEnd,
                first,
                settings);
    }

    private void start(List<CreatePath.Hop> hops, Map<String, String> settings) throws Exception {
        k = hops.size();
        admin.createTopics(IntStream.rangeClosed(0, k)
                        .mapToObj(i -> new NewTopic(BaselineChain.topic(i), PipelineBenchmark.PARTITIONS, (short) 1))
                        .toList())
                .all()
                .get();
        stateDir = Files.createTempDirectory("nodepool-baseline-");
        // The services' JVM options, so that the yardstick's JVM compiles and collects as theirs do.
        List<String> command = new ArrayList<>(List.of(
                ChildProcess.java(),
                "-Xmx256m",
                Stack.jvmOptions(Path.of(System.getProperty("stack.project-root", ".."))
                        .toAbsolutePath()
                        .normalize()),
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager"));
        // The harness's own Kafka client settings (on the secured broker: its super user's login), as -D arguments.
        command.addAll(ClientSecurity.serviceArguments(bootstrap));
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                BaselineChain.class.getName(),
                bootstrap,
                stateDir.toString(),
                String.join(",", hops.stream().map(CreatePath.Hop::service).toList())));
        settings.forEach((key, value) -> command.add(key + "=" + value));
        child = new ChildProcess("baseline", command, log);
        child.launch();
        child.awaitReady(() -> child.outputSinceLaunch().contains(BaselineChain.READY), START);
        follow();
    }

    /** A read_committed consumer of the chain's first and last topics that stamps when each key arrives there. */
    private void follow() {
        consumer = new KafkaConsumer<>(
                ClientSecurity.client(
                        bootstrap,
                        Map.of(
                                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                                "read_committed",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false,
                                ConsumerConfig.CLIENT_ID_CONFIG,
                                "benchmark-baseline-follower")),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = Stream.of(BaselineChain.topic(1), BaselineChain.topic(k))
                .distinct()
                .flatMap(topic ->
                        IntStream.range(0, PipelineBenchmark.PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)))
                .toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        follower = Thread.ofPlatform().name("baseline-follower").daemon().start(() -> {
            try {
                while (true) {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        long now = System.nanoTime();
                        if (record.topic().equals(BaselineChain.topic(1))) {
                            firstHop.putIfAbsent(record.key(), now);
                        }
                        if (record.topic().equals(BaselineChain.topic(k))) {
                            lastHop.putIfAbsent(record.key(), now);
                        }
                    }
                }
            } catch (WakeupException e) {
                // closing
            } finally {
                consumer.close();
            }
        });
    }

    private void send(String prefix, int count, List<String> keys, List<String> values) throws Exception {
        try (KafkaProducer<String, String> producer = Requests.producer(bootstrap)) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(producer.send(new ProducerRecord<>(
                        BaselineChain.topic(0),
                        prefix + "-" + keys.get(i % keys.size()),
                        values.get(i % values.size()))));
            }
            producer.flush();
            for (Future<?> future : sent) {
                future.get();
            }
        }
    }

    private void awaitLast(String prefix, int count) throws InterruptedException {
        long deadline = System.nanoTime() + START.toNanos();
        while (lastHop.keySet().stream()
                        .filter(key -> key.startsWith(prefix + "-"))
                        .count()
                < count) {
            if (System.nanoTime() > deadline || !child.isAlive()) {
                throw new IllegalStateException("the baseline chain passed only "
                        + lastHop.keySet().stream()
                                .filter(key -> key.startsWith(prefix + "-"))
                                .count() + " of " + count + " records within "
                        + START.toSeconds() + " s; see " + log);
            }
            Thread.sleep(20);
        }
    }

    private static long await(Map<String, Long> stamps, String key) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!stamps.containsKey(key) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return stamps.getOrDefault(key, 0L);
    }

    /**
     * The sustained-load steps through the running chain: record {@code i} is {@code values[i]} under the key
     * {@code s-<keys[i]>}; through when it reaches the last hop.
     */
    List<SustainedLoad.Step> sustained(SustainedLoad load, List<String> keys, List<String> values) throws Exception {
        try (KafkaProducer<String, String> producer = Requests.producer(bootstrap)) {
            return load.run(
                    "chain",
                    i -> producer.send(new ProducerRecord<>(
                            BaselineChain.topic(0),
                            "s-" + keys.get(i % keys.size()) + "-" + i,
                            values.get(i % values.size()))),
                    i -> lastHop.getOrDefault("s-" + keys.get(i % keys.size()) + "-" + i, 0L),
                    START);
        }
    }

    /** Stops the chain (SIGTERM, SIGKILL after 10 s) and its follower, and deletes its state. */
    void close() throws InterruptedException {
        if (consumer != null) {
            consumer.wakeup();
            follower.join(5_000);
        }
        if (child != null) {
            child.stop(Duration.ofSeconds(10));
        }
        if (stateDir != null) {
            try (Stream<Path> paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temporary folder: the OS cleans it up
            }
        }
    }
}
