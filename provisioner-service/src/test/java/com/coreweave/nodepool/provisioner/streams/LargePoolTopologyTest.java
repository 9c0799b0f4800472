package com.coreweave.nodepool.provisioner.streams;

import static com.coreweave.nodepool.provisioner.streams.ProvisionerTopologyTest.T0;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.StreamsDriver;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pool of the largest size the API accepts, {@link Limits#MAX_TARGET_NODES} nodes with labels on every node, goes
 * through the provisioner's topology: every record it writes, its stores' changelogs included, stays far below Kafka's
 * 1 MiB (issue 25: one 2,000-node pool's state outgrew it and stopped the service for every org). Prints how long the
 * pool's reconcile took and the largest record of each topic.
 */
class LargePoolTopologyTest {

    static final String KEY = "demo/large";
    static final int NODES = Limits.MAX_TARGET_NODES;
    /** Well below 1 MiB: what a record of a 5,000-node pool may take, whatever its topic. */
    static final int MAX_RECORD_BYTES = 64 * 1024;

    StreamsDriver driver;

    @BeforeEach
    void start() {
        var policy = new ProvisioningPolicy(
                Duration.ZERO,
                0.0,
                0,
                Set.of(),
                3,
                Duration.ofSeconds(30),
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
        driver = StreamsDriver.start(
                ProvisionerTopology.SERVICE,
                T0,
                clock -> ProvisionerTopology.build(policy, Duration.ofMillis(500), 1, clock));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aPoolOfFiveThousandNodesRegistersThemAllAndWritesNoRecordAnywhereNear1MiB() {
        // A smaller pool first, so that the measured one runs on a warm JVM as in a running service.
        Duration[] warmUp = create("demo/warm-up", "uid-0", 1_000);
        Duration[] reconcile = create(KEY, "uid-1", NODES);

        Map<String, List<TestRecord<byte[], byte[]>>> written = written();
        Map<String, TestRecord<byte[], byte[]>> largest = largest(written);
        System.out.printf(
                "A %,d-node pool: capacity-checked reconciled and committed in %d ms of CPU (%d ms wall; "
                        + "a 1,000-node pool before it, on a cold JVM, %d ms of CPU); largest record per topic (key + value "
                        + "bytes):%n",
                NODES, reconcile[0].toMillis(), reconcile[1].toMillis(), warmUp[0].toMillis());
        largest.forEach((topic, record) -> System.out.printf("  %-60s %,9d%n", topic, size(record)));
        assertThat(largest)
                .allSatisfy(
                        (topic, record) -> assertThat(size(record)).as(topic).isLessThanOrEqualTo(MAX_RECORD_BYTES));
        List<NodeFact> facts = facts(written);
        assertThat(facts).filteredOn(NodeFact.NodeRegistered.class::isInstance).hasSize(NODES);
        assertThat(summary(facts).currentNodes()).isEqualTo(NODES);
    }

    @Test
    void oneNodeOfAFiveThousandNodePoolThatChangesIsTheOneEntryItsStoresWrite() {
        create(KEY, "uid-1", NODES);
        written();
        String node = "uid-1-us-east-04a-gd-8xa100-i128-4242";

        driver.bytesInput(Topics.NODE_ACTIVITY_REPORTED)
                .pipeInput(
                        KEY,
                        ("{\"org\":\"demo\",\"pool\":\"large\",\"node\":\"" + node + "\",\"active\":true}")
                                .getBytes(StandardCharsets.UTF_8));

        Map<String, List<TestRecord<byte[], byte[]>>> written = written();
        assertThat(keys(written.get(changelog(StoreNames.POOL_MEMBERS)))).containsExactly(KEY + "/n/" + node);
        assertThat(written).as("the pool's head did not change").doesNotContainKey(changelog(StoreNames.POOLS));
    }

    @Test
    void deletingAFiveThousandNodePoolRemovesEveryNodeInRecordsFarBelow1MiB() {
        create(KEY, "uid-1", NODES);
        written();
        NodePoolAccepted pool = pool(KEY, "uid-1", NODES);

        driver.bytesInput(Topics.NODEPOOL_ACCEPTED)
                .pipeInput(
                        KEY,
                        Json.bytes(new NodePoolAccepted(
                                pool.org(),
                                pool.nodePool()
                                        .withMetadata(pool.nodePool().metadata().withDeletionTimestamp(T0)),
                                pool.validation(),
                                T0)));

        Map<String, List<TestRecord<byte[], byte[]>>> written = written();
        assertThat(largest(written))
                .allSatisfy(
                        (topic, record) -> assertThat(size(record)).as(topic).isLessThanOrEqualTo(MAX_RECORD_BYTES));
        List<NodeFact> facts = facts(written);
        assertThat(facts).filteredOn(NodeFact.NodeRemoved.class::isInstance).hasSize(NODES);
        assertThat(summary(facts).nodesRemoved()).isTrue();
        assertThat(driver.store(StoreNames.POOL_MEMBERS).approximateNumEntries())
                .as("no node is left; the grants the ledger lists, and their release, until it stops listing them")
                .isEqualTo(2L * NODES);
    }

    /**
     * Creates pool {@code key} with {@code nodes} nodes granted at once; returns the CPU time and the wall time the
     * topology took for the grants (the driver processes and commits on the calling thread).
     */
    private Duration[] create(String key, String uid, int nodes) {
        driver.bytesInput(Topics.NODEPOOL_ACCEPTED).pipeInput(key, Json.bytes(pool(key, uid, nodes)));
        List<Grant> grants = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            grants.add(new Grant(String.format("%s-us-east-04a-gd-8xa100-i128-%04d", uid, i), 1_000 + i));
        }
        byte[] checked =
                Json.bytes(new CapacityChecked(ref(key, uid), "Sufficient", nodes, grants, 0, null, null, "", T0));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = threads.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        driver.bytesInput(Topics.CAPACITY_CHECKED).pipeInput(key, checked);
        return new Duration[] {
            Duration.ofNanos(threads.getCurrentThreadCpuTime() - cpu), Duration.ofNanos(System.nanoTime() - wall)
        };
    }

    /** Every record written since the last call, by topic. */
    private Map<String, List<TestRecord<byte[], byte[]>>> written() {
        Map<String, List<TestRecord<byte[], byte[]>>> written = new TreeMap<>();
        for (String topic : driver.driver().producedTopicNames()) {
            List<TestRecord<byte[], byte[]>> records = driver.driver()
                    .createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer())
                    .readRecordsToList();
            if (!records.isEmpty()) {
                written.put(topic, records);
            }
        }
        return written;
    }

    private static Map<String, TestRecord<byte[], byte[]>> largest(Map<String, List<TestRecord<byte[], byte[]>>> all) {
        Map<String, TestRecord<byte[], byte[]>> largest = new TreeMap<>();
        all.forEach((topic, records) ->
                records.forEach(record -> largest.merge(topic, record, (a, b) -> size(a) >= size(b) ? a : b)));
        return largest;
    }

    /** The node facts written about the measured pool. */
    private static List<NodeFact> facts(Map<String, List<TestRecord<byte[], byte[]>>> written) {
        return written.get(Topics.NODEPOOL_NODES_CHANGED.name()).stream()
                .filter(record -> KEY.equals(new String(record.key(), StandardCharsets.UTF_8)))
                .map(record -> Json.read(record.value(), NodeFact.class))
                .toList();
    }

    private static NodeFact.NodePoolReconciled summary(List<NodeFact> facts) {
        return facts.stream()
                .filter(NodeFact.NodePoolReconciled.class::isInstance)
                .map(NodeFact.NodePoolReconciled.class::cast)
                .reduce((first, last) -> last)
                .orElseThrow();
    }

    private static List<String> keys(List<TestRecord<byte[], byte[]>> records) {
        return records.stream()
                .map(record -> new String(record.key(), StandardCharsets.UTF_8))
                .toList();
    }

    private static String changelog(String store) {
        return ProvisionerTopology.SERVICE + "-" + store + "-changelog";
    }

    private static int size(TestRecord<byte[], byte[]> record) {
        return (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
    }

    private static PoolRef ref(String key, String uid) {
        return new PoolRef("demo", key.substring("demo/".length()), uid, 1, "US-EAST-04A", "gd-8xa100-i128", "default");
    }

    /** A pool whose nodes carry a few labels and annotations, as a real one's do. */
    private static NodePoolAccepted pool(String key, String uid, int target) {
        var spec = new NodePoolSpec(
                "default",
                "gd-8xa100-i128",
                target,
                null,
                null,
                Map.of("team", "research", "cost-center", "ml-platform-4711"),
                Map.of("owner", "research-infra@example.com"),
                null,
                null,
                null,
                false,
                new Lifecycle(Lifecycle.IDLE_ONLY, false),
                null,
                "US-EAST-04A");
        return new NodePoolAccepted(
                "demo",
                NodePool.of(
                        new ObjectMeta(
                                key.substring("demo/".length()),
                                uid,
                                1L,
                                "1",
                                T0,
                                null,
                                Map.of("team", "research"),
                                null),
                        spec,
                        null),
                new Validation("Valid", "NodePool configuration is valid."),
                T0);
    }
}
