package com.coreweave.nodepool.schema.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The one way every topic is read: what each accepts (its golden record under its key) and the dead-letter code of what
 * it refuses. Every service reading a topic goes through {@link Topic#read}, so these are the rules of all.
 */
class TopicReadTest {

    private static final String POOL = "demo/example-nodepool";
    private static final String SPOT = "demo/spot-nodepool";

    /** Each topic with a golden record of it (events-schema's pinned JSON) and the key it belongs under. */
    static Stream<Arguments> goldenRecords() {
        return Stream.of(
                Arguments.of(Topics.NODEPOOL_REQUESTED, "nodepool-requested.json", POOL),
                Arguments.of(Topics.NODEPOOL_REQUEST_DECIDED, "nodepool-request-decided.json", POOL),
                Arguments.of(Topics.NODEPOOL_ACCEPTED, "nodepool-accepted.json", POOL),
                Arguments.of(Topics.QUOTA_LIMIT_SET, "quota-limit-set.json", "demo/US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.QUOTA_DEMANDED, "quota-demanded.json", "demo/US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.QUOTA_DEMANDED, "quota-demanded-gone.json", "demo/US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.CAPACITY_DEMANDED, "capacity-demanded.json", "US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.CAPACITY_DEMANDED, "capacity-demanded-gone.json", "US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.ORG_POOLS_COUNTED, "org-pools-counted.json", "demo/2"),
                Arguments.of(Topics.INSTANCE_TYPE_CATALOGUED, "instance-type-catalogued.json", "gd-8xa100-i128"),
                Arguments.of(
                        Topics.FLEET_CHANGE_REQUESTED, "fleet-change-requested.json", "US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.CAPACITY_CHECKED, "capacity-checked.json", POOL),
                Arguments.of(Topics.SPOT_RECLAIM_REQUESTED, "spot-reclaim-requested.json", SPOT),
                Arguments.of(Topics.NODE_ACTIVITY_REPORTED, "node-activity-reported.json", POOL),
                Arguments.of(Topics.NODEPOOL_NODES_CHANGED, "node-assigned.json", POOL),
                Arguments.of(Topics.NODEPOOL_NODES_CHANGED, "node-removed.json", POOL),
                Arguments.of(Topics.NODEPOOL_NODES_CHANGED, "nodepool-reconciled.json", POOL),
                Arguments.of(Topics.SPOT_PREEMPTION_PROGRESSED, "preemption-pending.json", SPOT),
                Arguments.of(Topics.SPOT_PREEMPTION_PROGRESSED, "node-preempted.json", SPOT),
                Arguments.of(Topics.NODEPOOL_EVENT_RECORDED, "nodepool-event-recorded.json", POOL),
                Arguments.of(Topics.NODEPOOL_EVENTS, "nodepool-events.json", POOL),
                Arguments.of(Topics.NODEPOOL_STATUS, "healthy-nodepool.json", POOL),
                Arguments.of(Topics.NODEPOOL_CONFIGURATION_REQUESTED, "nodepool-configuration-requested.json", POOL),
                Arguments.of(Topics.NODE_RELEASE_PUBLISHED, "node-release-published.json", "stable"),
                Arguments.of(Topics.NODE_ALERT_RAISED, "node-alert-raised.json", POOL),
                Arguments.of(Topics.NODE_DELETION_REQUESTED, "node-deletion-requested.json", POOL),
                Arguments.of(Topics.NODE_CHANGE_REQUESTED, "node-change-requested.json", POOL),
                Arguments.of(Topics.NODE_ACTIVITY_REPORTED, "node-activity-reported-pdb.json", POOL),
                Arguments.of(Topics.NODEPOOL_NODES_CHANGED, "node-removed-triaged.json", POOL),
                Arguments.of(Topics.NODEPOOL_NODES_CHANGED, "nodepool-reconciled-errors.json", POOL),
                Arguments.of(Topics.WORKLOAD_PENDING, "workload-pending.json", "demo/train-llm"),
                Arguments.of(Topics.WORKLOAD_STATUS, "workload-status.json", "demo/train-llm"),
                Arguments.of(Topics.FLEET_AVAILABILITY, "fleet-availability.json", "US-EAST-04A/gd-8xa100-i128"),
                Arguments.of(Topics.POOL_OFFERED, "pool-offered.json", "demo"),
                Arguments.of(Topics.POOL_DEMAND_PLANNED, "pool-demand-planned.json", POOL),
                Arguments.of(Topics.AUDIT_EVENTS, "audit-events.json", "demo"));
    }

    /** Every topic a service reads (dead letters are only written). */
    static Stream<Topic<?, ?>> readTopics() {
        return Topics.all().stream().filter(t -> !t.name().endsWith("-dlq"));
    }

    @ParameterizedTest(name = "{0} reads {1}")
    @MethodSource("goldenRecords")
    void everyTopicReadsItsGoldenRecord(Topic<?, ?> topic, String golden, String key) throws IOException {
        assertThat(topic.read(key, golden(golden))).isNotNull();
    }

    @Test
    void everyTopicThatIsReadHasAGoldenRecordHere() {
        List<String> covered = goldenRecords()
                .map(a -> ((Topic<?, ?>) a.get()[0]).name())
                .distinct()
                .toList();
        assertThat(covered)
                .containsExactlyInAnyOrderElementsOf(
                        readTopics().map(Topic::name).toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readTopics")
    void everyTopicRefusesARecordWithoutAKey(Topic<?, ?> topic) {
        assertThat(refusal(topic, null, "{}")).isEqualTo(Code.KEY_MISSING);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readTopics")
    void everyTopicRefusesAValueThatIsNotJson(Topic<?, ?> topic) {
        assertThat(refusal(topic, keyOf(topic), "{not json")).isEqualTo(Code.MALFORMED_JSON);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readTopics")
    void everyTopicRefusesJsonOfAnotherShape(Topic<?, ?> topic) {
        Code expected = topic == Topics.NODEPOOL_REQUESTED
                        || topic == Topics.NODE_ALERT_RAISED
                        || topic == Topics.WORKLOAD_PENDING
                ? Code.INVALID_CLOUD_EVENT
                : Code.INVALID_RECORD;
        assertThat(refusal(topic, keyOf(topic), "[1, 2]")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readTopics")
    void aMissingValueIsATombstoneOnlyOnACompactedTopic(Topic<?, ?> topic) {
        if (topic.compacted()) {
            assertThat(topic.read(keyOf(topic), null)).isNull();
        } else {
            assertThat(refusal(topic, keyOf(topic), (byte[]) null)).isEqualTo(Code.VALUE_MISSING);
        }
    }

    @ParameterizedTest(name = "{0} from {1}")
    @MethodSource("goldenRecords")
    void aPoolFactUnderAnotherPoolsKeyIsRefused(Topic<?, ?> topic, String golden, String key) throws IOException {
        if (topic.keyFormat() != KeyFormat.POOL
                || topic == Topics.NODEPOOL_EVENTS
                || topic == Topics.NODEPOOL_REQUEST_DECIDED) {
            return; // Outbound events and decisions carry no pool of their own to compare.
        }
        assertThat(refusal(topic, "demo/another-pool", golden(golden))).isEqualTo(Code.KEY_MISMATCH);
    }

    @Test
    void aRecordOfRecordedEventsMustHoldAtLeastOne() {
        assertThat(refusal(Topics.NODEPOOL_EVENT_RECORDED, POOL, "{\"events\":[]}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.NODEPOOL_EVENT_RECORDED, POOL, "{\"events\":[null]}"))
                .isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void aQuotaDemandIsUnderItsPoolsQuota() throws IOException {
        assertThat(refusal(Topics.QUOTA_DEMANDED, "other/US-EAST-04A/gd-8xa100-i128", golden("quota-demanded.json")))
                .isEqualTo(Code.KEY_MISMATCH);
        assertThat(refusal(Topics.QUOTA_DEMANDED, "demo/US-EAST-04A/gd-8xa100-i128", "{\"requested\":1}"))
                .isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void aDemandIsUnderItsPoolsLedgerAndCarriesADecisionOrADeparture() throws IOException {
        String ledger = "US-EAST-04A/gd-8xa100-i128";
        assertThat(refusal(Topics.CAPACITY_DEMANDED, "US-WEST-04A/gd-8xa100-i128", golden("capacity-demanded.json")))
                .isEqualTo(Code.KEY_MISMATCH);
        assertThat(refusal(Topics.CAPACITY_DEMANDED, ledger, "{\"pool\":\"demo/example-nodepool\"}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.CAPACITY_DEMANDED, ledger, "{\"pool\":\"no-slash\",\"goneUid\":\"u-1\"}"))
                .isEqualTo(Code.INVALID_RECORD);
        String both = new String(golden("capacity-demanded.json"), StandardCharsets.UTF_8)
                .replaceFirst("\\{", "{\"goneUid\":\"u-1\",");
        assertThat(refusal(Topics.CAPACITY_DEMANDED, ledger, both)).isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void keysOfAnotherFormAreRefused() {
        assertThat(refusal(Topics.NODE_ACTIVITY_REPORTED, "no-slash", "{}")).isEqualTo(Code.INVALID_KEY);
        assertThat(refusal(Topics.QUOTA_LIMIT_SET, "demo/US-EAST-04A", "{}")).isEqualTo(Code.INVALID_KEY);
        assertThat(refusal(Topics.NODE_RELEASE_PUBLISHED, "nightly", "{}")).isEqualTo(Code.INVALID_KEY);
    }

    @Test
    void anActivityReportMustSayWhatItIsAbout() {
        String report = "{\"org\":\"demo\",\"pool\":\"example-nodepool\",\"node\":\"n-1\"";
        assertThat(refusal(Topics.NODE_ACTIVITY_REPORTED, POOL, report + "}"))
                .as("no active")
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.NODE_ACTIVITY_REPORTED, POOL, report + ",\"active\":\"yes\"}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(
                        Topics.NODE_ACTIVITY_REPORTED,
                        POOL,
                        report + ",\"active\":true,\"terminationGracePeriodSeconds\":1.5}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(
                        Topics.NODE_ACTIVITY_REPORTED,
                        POOL,
                        report + ",\"active\":true,\"terminationGracePeriodSeconds\":-1}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(
                        Topics.NODE_ACTIVITY_REPORTED,
                        POOL,
                        "{\"org\":\"demo\",\"pool\":\"example-nodepool\",\"node\":\"Not_A_Node\",\"active\":true}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(
                        Topics.NODE_ACTIVITY_REPORTED,
                        POOL,
                        report + ",\"active\":true,\"disruptionsAllowed\":\"none\"}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(activity(report + ",\"active\":false}").active()).isFalse();
        assertThat(activity(report + ",\"active\":true,\"disruptionsAllowed\":0}")
                        .drainBlocked())
                .isTrue();
        assertThat(refusal(Topics.NODE_ACTIVITY_REPORTED, POOL, report + ",\"active\":true,\"doNotDisrupt\":\"yes\"}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(activity(report + ",\"active\":true,\"doNotDisrupt\":true}").holdsNode())
                .isTrue();
        assertThat(activity(report + ",\"active\":false,\"doNotDisrupt\":true}").holdsNode())
                .as("an idle node holds nothing")
                .isFalse();
    }

    private static NodeActivityReported activity(String json) {
        return Topics.NODE_ACTIVITY_REPORTED.read(POOL, utf8(json));
    }

    @Test
    void aNodeAlertIsARaisedOrResolvedCloudEventNamingANodeAndAnAlert() throws IOException {
        String raised = new String(golden("node-alert-raised.json"), StandardCharsets.UTF_8);
        var event = Topics.NODE_ALERT_RAISED.read(POOL, utf8(raised));
        assertThat(event.data().alert()).isEqualTo("GPUFallenOffBus");
        assertThat(Topics.NODE_ALERT_RAISED
                        .read(
                                POOL,
                                utf8(raised.replace("NodeAlertRaised", "NodeAlertResolved")
                                        .replace("GPUFallenOffBus", "NotInAnyCatalogue")))
                        .data()
                        .alert())
                .as("recorded, never acted on")
                .isEqualTo("NotInAnyCatalogue");
        assertThat(refusal(Topics.NODE_ALERT_RAISED, POOL, raised.replace("NodeAlertRaised", "NodeRebooted")))
                .isEqualTo(Code.UNSUPPORTED_TYPE);
        assertThat(refusal(Topics.NODE_ALERT_RAISED, POOL, raised.replace("\"1.0\"", "\"0.3\"")))
                .isEqualTo(Code.INVALID_CLOUD_EVENT);
        assertThat(refusal(Topics.NODE_ALERT_RAISED, POOL, raised.replace("2025-06-09T14:48:54Z", "yesterday")))
                .isEqualTo(Code.INVALID_CLOUD_EVENT);
        assertThat(refusal(Topics.NODE_ALERT_RAISED, POOL, raised.replace("GPUFallenOffBus", "Xid 79; rm -rf")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.NODE_ALERT_RAISED, POOL, raised.replace("us-east-04a-gd-8xa100-i128-0001", "N_1")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(
                        Topics.NODE_ALERT_RAISED,
                        POOL,
                        raised.replaceAll("\"details\" : \"[^\"]*\"", "\"details\" : 7")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.NODE_ALERT_RAISED, POOL, raised.replace("\"data\" : {", "\"datum\" : {")))
                .isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void aQuotaLimitWithoutMaxNodesIsNotAQuotaOfZero() {
        String key = "demo/US-EAST-04A/gd-8xa100-i128";
        String limit = "{\"org\":\"demo\",\"zone\":\"US-EAST-04A\",\"instanceType\":\"gd-8xa100-i128\"";
        assertThat(refusal(Topics.QUOTA_LIMIT_SET, key, limit + "}")).isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.QUOTA_LIMIT_SET, key, limit + ",\"maxNodes\":\"ten\"}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.QUOTA_LIMIT_SET, key, limit + ",\"maxNodes\":-1}"))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(Topics.QUOTA_LIMIT_SET
                        .read(key, utf8(limit + ",\"maxNodes\":0}"))
                        .maxNodes())
                .isZero();
    }

    @Test
    void onlySpotPoolsArePreempted() throws IOException {
        String reclaim = new String(golden("spot-reclaim-requested.json"), StandardCharsets.UTF_8)
                .replace("\"spot\"", "\"default\"");
        assertThat(refusal(Topics.SPOT_RECLAIM_REQUESTED, SPOT, reclaim)).isEqualTo(Code.NOT_SPOT_POOL);
    }

    @Test
    void aRemovedNodeMustNameTheGrantItReleases() throws IOException {
        String removed = new String(golden("node-removed.json"), StandardCharsets.UTF_8)
                .replaceAll("\"grant\"\\s*:\\s*\\{[^}]*}\\s*,", "");
        assertThat(removed).doesNotContain("\"grant\"");
        assertThat(refusal(Topics.NODEPOOL_NODES_CHANGED, POOL, removed)).isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void anAcceptedPoolMustNameItsIncarnation() throws IOException {
        String accepted = new String(golden("nodepool-accepted.json"), StandardCharsets.UTF_8)
                .replaceAll("\"uid\"\\s*:\\s*\"[^\"]*\"\\s*,", "");
        assertThat(refusal(Topics.NODEPOOL_ACCEPTED, POOL, accepted)).isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void aNodeChangeNamingMoreThanAUserMaySetIsRefused() throws IOException {
        String golden = new String(golden("node-change-requested.json"), StandardCharsets.UTF_8);
        String many = IntStream.rangeClosed(0, Limits.MAX_USER_NODE_MARKS)
                .mapToObj(i -> "\"k" + i + "\" : \"v\"")
                .collect(Collectors.joining(", ", "{", "}"));
        String tooMany = golden.replaceFirst("\\{\\s*\"team\" : \"a\"\\s*}", many);
        assertThat(tooMany).isNotEqualTo(golden);
        assertThat(refusal(Topics.NODE_CHANGE_REQUESTED, POOL, tooMany)).isEqualTo(Code.INVALID_RECORD);
    }

    @Test
    void aWorkloadIsReadWithEveryFieldBoundedAndAnythingElseIsDeadLetteredWithItsReason() throws IOException {
        String pending = new String(golden("workload-pending.json"), StandardCharsets.UTF_8);
        String key = "demo/train-llm";
        var event = Topics.WORKLOAD_PENDING.read(key, utf8(pending));
        assertThat(event.data().pods()).isEqualTo(8);
        assertThat(event.data().needs().nodeSelector()).containsEntry("team", "ml");
        assertThat(Topics.WORKLOAD_PENDING
                        .read(key, utf8(pending.replace("WorkloadPending", "WorkloadGone")))
                        .type())
                .isEqualTo("WorkloadGone");
        assertThat(refusal(Topics.WORKLOAD_PENDING, "demo/other", utf8(pending)))
                .isEqualTo(Code.KEY_MISMATCH);
        assertThat(refusal(
                        Topics.WORKLOAD_PENDING,
                        "other/train-llm",
                        utf8(pending.replace("demo/train-llm", "other/train-llm"))))
                .as("the data names another org than the key")
                .isEqualTo(Code.KEY_MISMATCH);
        assertThat(refusal(Topics.WORKLOAD_PENDING, key, pending.replace("WorkloadPending", "PodPending")))
                .isEqualTo(Code.UNSUPPORTED_TYPE);
        assertThat(refusal(Topics.WORKLOAD_PENDING, key, pending.replace("\"pods\" : 8", "\"pods\" : 10001")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.WORKLOAD_PENDING, key, pending.replace("\"pods\" : 8", "\"pods\" : 0")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(
                        Topics.WORKLOAD_PENDING,
                        key,
                        pending.replace(
                                "\"gpuModel\" : \"H100\"", "\"gpuModel\" : \"H100\", \"instanceType\" : \"x\"")))
                .as("an instance type or a GPU model, not both")
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.WORKLOAD_PENDING, key, pending.replace("\"Exists\"", "\"Sometimes\"")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.WORKLOAD_PENDING, key, pending.replace("\"ml\"", "\"" + "m".repeat(400) + "\"")))
                .isEqualTo(Code.INVALID_RECORD);
        assertThat(refusal(Topics.WORKLOAD_PENDING, key, pending.replace("\"gpus\" : 8", "\"gpus\" : \"eight\"")))
                .isEqualTo(Code.INVALID_RECORD);
    }

    private static String keyOf(Topic<?, ?> topic) {
        return goldenRecords()
                .filter(a -> a.get()[0] == topic)
                .map(a -> (String) a.get()[2])
                .findFirst()
                .orElseThrow();
    }

    private static Code refusal(Topic<?, ?> topic, String key, String value) {
        return refusal(topic, key, value == null ? null : utf8(value));
    }

    private static Code refusal(Topic<?, ?> topic, String key, byte[] value) {
        Rejection rejection = catchThrowableOfType(Rejection.class, () -> topic.read(key, value));
        assertThat(rejection)
                .as("%s refuses %s", topic.name(), value == null ? null : new String(value, StandardCharsets.UTF_8))
                .isNotNull();
        assertThat(rejection.reason()).isNotBlank();
        return rejection.code();
    }

    private static byte[] golden(String name) throws IOException {
        try (InputStream in = TopicReadTest.class.getResourceAsStream("/golden/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
