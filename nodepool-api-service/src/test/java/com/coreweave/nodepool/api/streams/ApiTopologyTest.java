package com.coreweave.nodepool.api.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.DeletedPoolEvents;
import com.coreweave.nodepool.api.domain.PoolRequest;
import com.coreweave.nodepool.kit.audit.AuditLog;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.InstanceTypes;
import com.coreweave.nodepool.testing.StreamsDriver;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The api-service's topology without a broker: requests are decided once, the accepted pool and its status are
 * published, a status change gets a resourceVersion of its own without making a client's version stale, and a refused
 * topic request is dead-lettered with a Warning on the pool.
 */
class ApiTopologyTest {

    static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    static final String KEY = "demo/train";

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    StreamsDriver driver;
    TestInputTopic<String, String> requests;
    TestInputTopic<String, String> nodes;
    TestOutputTopic<String, String> decided;
    TestOutputTopic<String, String> accepted;
    TestOutputTopic<String, String> status;
    TestOutputTopic<String, String> events;
    TestOutputTopic<String, String> dlq;

    @BeforeEach
    void start() {
        // The service's clock stands at NOW throughout; revalidation runs on the driver's wall clock alone.
        driver = StreamsDriver.start(
                "api-test",
                NOW,
                clock -> ApiTopology.build(
                        new Defaults(),
                        1,
                        Clock.fixed(NOW, ZoneOffset.UTC),
                        (key, answer) -> {},
                        new PoolConditionGauges(registry)));
        InstanceTypes.publish(driver, InstanceTypes.A100);
        requests = driver.input(Topics.NODEPOOL_REQUESTED);
        nodes = driver.input(Topics.NODEPOOL_NODES_CHANGED);
        decided = driver.output(Topics.NODEPOOL_REQUEST_DECIDED);
        accepted = driver.output(Topics.NODEPOOL_ACCEPTED);
        status = driver.output(Topics.NODEPOOL_STATUS);
        events = driver.output(Topics.NODEPOOL_EVENTS);
        dlq = driver.output(Topics.NODEPOOL_REQUESTED_DLQ);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    static String apply(String id, int target, String resourceVersion) {
        String version = resourceVersion == null ? "" : ",\"resourceVersion\":\"" + resourceVersion + "\"";
        JsonNode pool = Json.mapper().valueToTree(Json.read("""
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"train"%s},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":%d}}""".formatted(version, target), JsonNode.class));
        return Json.string(CloudEvent.of(
                id,
                "platform-team/ci",
                NodePoolRequested.TYPE,
                KEY,
                NOW,
                Json.mapper().createObjectNode().put("operation", "APPLY").set("nodePool", pool)));
    }

    private NodePool lastStatus() {
        List<TestRecord<String, String>> published = status.readRecordsToList();
        assertThat(published).isNotEmpty();
        return Json.read(published.get(published.size() - 1).value(), NodePool.class);
    }

    @Test
    void aRequestIsDecidedOnceAndItsPoolAcceptedAndPublished() {
        requests.pipeInput(KEY, apply("req-1", 2, null));
        requests.pipeInput(KEY, apply("req-1", 2, null));

        List<RequestDecided> answers = decided.readValuesToList().stream()
                .map(v -> Json.read(v, RequestDecided.class))
                .toList();
        assertThat(answers).hasSize(2).allMatch(a -> a.outcome() == RequestDecided.Outcome.CREATED);
        assertThat(answers.get(1)).as("a repeated id gets the first answer").isEqualTo(answers.get(0));
        assertThat(accepted.readValuesToList()).hasSize(1);
        NodePool published = lastStatus();
        assertThat(published.metadata().resourceVersion())
                .isEqualTo(answers.get(0).nodePool().metadata().resourceVersion());
        assertThat(published.status().condition(Conditions.VALIDATED).reason()).isEqualTo("Valid");
        assertThat(events.readValuesToList()).anyMatch(e -> e.contains("CWNodePoolCreated"));
    }

    @Test
    void aStatusChangeHasAVersionOfItsOwnAndLeavesTheLastWritesVersionValid() {
        requests.pipeInput(KEY, apply("req-1", 2, null));
        NodePool created = lastStatus();
        String written = created.metadata().resourceVersion();
        PoolRef ref = PoolRef.of(Json.read(
                accepted.readValuesToList().get(0), com.coreweave.nodepool.schema.events.NodePoolAccepted.class));

        driver.driver().advanceWallClockTime(Duration.ofMillis(5));
        nodes.pipeInput(
                KEY,
                Json.string(new NodeFact.NodePoolReconciled(
                        ref,
                        2,
                        0,
                        0,
                        0,
                        "np-1",
                        null,
                        List.of(),
                        false,
                        false,
                        false,
                        null,
                        NOW,
                        null,
                        null,
                        null,
                        new Verdicts(Conditions.Quota.UNDER, "NodePool is within instance type quota.", null, null, 0),
                        null,
                        null)));
        NodePool afterQuota = lastStatus();

        assertThat(Long.parseLong(afterQuota.metadata().resourceVersion())).isGreaterThan(Long.parseLong(written));
        assertThat(afterQuota.status().condition(Conditions.QUOTA).reason()).isEqualTo("Under");

        // A write naming the version of the last write or of the status change holds: only the status moved since.
        requests.pipeInput(KEY, apply("req-2", 3, written));
        requests.pipeInput(KEY, apply("req-3", 4, afterQuota.metadata().resourceVersion()));
        List<RequestDecided> answers = decided.readValuesToList().stream()
                .map(v -> Json.read(v, RequestDecided.class))
                .toList();
        assertThat(answers)
                .extracting(RequestDecided::outcome)
                .containsExactly(
                        RequestDecided.Outcome.CREATED,
                        RequestDecided.Outcome.UPDATED,
                        RequestDecided.Outcome.REJECTED);
        assertThat(answers.get(2).error().getReason()).isEqualTo("Conflict");
    }

    /** What the nodepool_pools gauge says of the pools in this condition state. */
    private double pools(String condition, String status, String reason) {
        var gauge = registry.find("nodepool.pools")
                .tags("condition", condition, "status", status, "reason", reason)
                .gauge();
        return gauge == null ? -1 : gauge.value();
    }

    @Test
    void aRemovedPoolPublishesItsLastStatusBeforeItsTombstoneAndLeavesThePoolsGauge() {
        requests.pipeInput(KEY, apply("req-1", 1, null));
        assertThat(pools(Conditions.VALIDATED, "True", "Valid")).isEqualTo(1);
        PoolRef ref = PoolRef.of(Json.read(
                accepted.readValuesToList().get(0), com.coreweave.nodepool.schema.events.NodePoolAccepted.class));
        requests.pipeInput(KEY, delete("req-2"));
        status.readRecordsToList();

        driver.input(Topics.NODEPOOL_NODES_CHANGED)
                .pipeInput(
                        KEY,
                        Json.string(new NodeFact.NodePoolReconciled(
                                ref, 0, 0, 0, 0, null, null, List.of(), true, true, false, null, NOW)));

        List<String> published = status.readValuesToList();
        assertThat(published).hasSize(2);
        assertThat(Json.read(published.get(0), NodePool.class)
                        .status()
                        .condition(Conditions.NODES_REMOVED)
                        .reason())
                .isEqualTo("Complete");
        assertThat(published.get(1)).as("the tombstone comes last").isNull();
        assertThat(pools(Conditions.VALIDATED, "True", "Valid")).isZero();
        assertThat(pools(Conditions.NODES_REMOVED, "True", "Complete")).isZero();
    }

    @Test
    void eachAcceptedPoolsDemandGoesToItsQuotaAndItsDepartureWithItsTombstone() {
        TestOutputTopic<String, String> demands = driver.output(Topics.QUOTA_DEMANDED);
        requests.pipeInput(KEY, apply("req-1", 2, null));
        requests.pipeInput(KEY, apply("req-2", 3, null));
        PoolRef ref = PoolRef.of(Json.read(
                accepted.readValuesToList().get(0), com.coreweave.nodepool.schema.events.NodePoolAccepted.class));
        requests.pipeInput(KEY, delete("req-3"));
        driver.input(Topics.NODEPOOL_NODES_CHANGED)
                .pipeInput(
                        KEY,
                        Json.string(new NodeFact.NodePoolReconciled(
                                ref, 0, 0, 0, 0, null, null, List.of(), true, true, false, null, NOW)));

        var told = demands.readRecordsToList();
        assertThat(told).extracting(r -> r.key()).containsOnly("demo/US-EAST-04A/gd-8xa100-i128");
        assertThat(told)
                .extracting(r -> Json.read(r.value(), QuotaDemanded.class))
                .extracting(d -> d.requested() + (d.deleting() ? " deleting" : "") + (d.gone() ? " gone" : ""))
                .containsExactly("2", "3", "3 deleting", "0 deleting gone");
    }

    @Test
    void aRefusedTopicRequestIsDeadLetteredAndShownOnThePool() {
        requests.pipeInput(KEY, apply("req-1", 2, null));
        requests.pipeInput(KEY, apply("req-2", 3, "1"));

        var refused = dlq.readRecordsToList();
        assertThat(refused).singleElement().satisfies(r -> {
            assertThat(r.headers().lastHeader("dlq.reason")).isNotNull();
            assertThat(r.value()).contains("req-2");
        });
        assertThat(events.readValuesToList())
                .anyMatch(e -> e.contains("CWNodePoolNodesRequestFailed") && e.contains("req-2"));
    }

    /** Issue 27: an org's own topic creates its pools as the shared topic does, and nobody else's. */
    @Test
    void anOrgsOwnTopicCreatesItsOwnPoolsOnly() {
        TestInputTopic<String, String> demoTopic = driver.input(TenantTopics.of(Topics.NODEPOOL_REQUESTED, "demo"));
        TestInputTopic<String, String> otherTopic = driver.input(TenantTopics.of(Topics.NODEPOOL_REQUESTED, "other"));

        demoTopic.pipeInput(KEY, apply("req-1", 2, null));
        otherTopic.pipeInput(KEY, apply("req-2", 3, null));

        assertThat(decided.readValuesToList())
                .extracting(v -> Json.read(v, RequestDecided.class).outcome())
                .containsExactly(RequestDecided.Outcome.CREATED);
        assertThat(lastStatus().spec().targetNodes()).isEqualTo(2);
        assertThat(dlq.readRecordsToList()).singleElement().satisfies(r -> {
            assertThat(header(r, "dlq.error")).isEqualTo("Forbidden");
            assertThat(header(r, "dlq.reason"))
                    .isEqualTo("a record for org demo on org other's topic nodepool-requested.other");
            assertThat(r.value()).contains("req-2");
        });
    }

    /** Issue 27: REST's source is trusted only on the shared topic, which platform teams cannot write. */
    @Test
    void aRequestOnAnOrgsOwnTopicClaimingRestsSourceIsDeadLetteredAsForbidden() {
        TestInputTopic<String, String> demoTopic = driver.input(TenantTopics.of(Topics.NODEPOOL_REQUESTED, "demo"));

        demoTopic.pipeInput(KEY, apply("req-1", 2, null).replace("platform-team/ci", PoolRequest.REST_SOURCE));

        assertThat(dlq.readRecordsToList()).singleElement().satisfies(r -> {
            assertThat(header(r, "dlq.error")).isEqualTo("Forbidden");
            assertThat(header(r, "dlq.reason"))
                    .isEqualTo("source nodepool-api-service/rest is the API's own; a tenant topic cannot use it");
            assertThat(header(r, "dlq.source.topic")).isEqualTo("nodepool-requested.demo");
        });
        assertThat(decided.isEmpty()).isTrue();
        assertThat(accepted.isEmpty()).isTrue();
    }

    private static String header(TestRecord<String, String> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    /**
     * Issue 27: each decision of a topic request is one audit line, its user the principal that could write it (the
     * source, as given, on the shared topic), its object the pool, its status the decision's; a request from REST is
     * audited by its HTTP answer instead.
     */
    @Test
    void eachDecidedTopicRequestIsAuditedWithItsSourceAsUser() {
        List<String> lines = audited(() -> {
            requests.pipeInput(KEY, apply("req-1", 2, null));
            requests.pipeInput(KEY, apply("req-2", 3, "1"));
        });

        assertThat(lines).hasSize(2);
        JsonNode created = Json.read(lines.get(0), JsonNode.class);
        assertThat(created.path("kind").asText()).isEqualTo("Event");
        assertThat(created.path("apiVersion").asText()).isEqualTo("audit.k8s.io/v1");
        assertThat(created.path("level").asText()).isEqualTo("Metadata");
        assertThat(created.path("verb").asText()).isEqualTo("patch");
        assertThat(created.path("user").path("username").asText()).isEqualTo("platform-team/ci");
        assertThat(created.path("annotations")
                        .path("nodepool.coreweave.com/cloudevent-source")
                        .asText())
                .isEqualTo("platform-team/ci");
        assertThat(created.path("user").path("groups").get(0).asText()).isEqualTo("demo");
        assertThat(created.path("requestURI").asText()).startsWith("kafka:nodepool-requested/0/");
        assertThat(created.path("objectRef").path("resource").asText()).isEqualTo("nodepools");
        assertThat(created.path("objectRef").path("name").asText()).isEqualTo("train");
        assertThat(created.path("responseStatus").path("code").asInt()).isEqualTo(201);
        assertThat(created.path("annotations")
                        .path("nodepool.coreweave.com/org")
                        .asText())
                .isEqualTo("demo");
        assertThat(created.path("annotations")
                        .path("nodepool.coreweave.com/request-id")
                        .asText())
                .isEqualTo("req-1");
        assertThat(created.path("annotations")
                        .path("nodepool.coreweave.com/generation")
                        .asText())
                .isEqualTo("1");
        assertThat(created.path("requestReceivedTimestamp").asText()).isEqualTo("2026-11-22T10:00:00.000000Z");
        JsonNode refused = Json.read(lines.get(1), JsonNode.class);
        assertThat(refused.path("responseStatus").path("code").asInt()).isEqualTo(409);
        assertThat(refused.path("responseStatus").path("status").asText()).isEqualTo("Failure");
        assertThat(refused.path("responseStatus").path("reason").asText()).isEqualTo("Conflict");
        assertThat(refused.path("auditID").asText())
                .isNotEqualTo(created.path("auditID").asText());
    }

    /**
     * Issue 27: a request of an org's own topic is audited as written by the org's principal, whatever source it gives,
     * and so is one refused before any decision for being another org's or claiming REST's source.
     */
    @Test
    void anOrgsTopicRequestsAreAuditedAsItsPrincipalsRefusedOnesToo() {
        TestInputTopic<String, String> demoTopic = driver.input(TenantTopics.of(Topics.NODEPOOL_REQUESTED, "demo"));
        TestInputTopic<String, String> otherTopic = driver.input(TenantTopics.of(Topics.NODEPOOL_REQUESTED, "other"));
        var trail = driver.output(Topics.AUDIT_EVENTS);

        List<String> lines = audited(() -> {
            demoTopic.pipeInput(KEY, apply("req-1", 2, null));
            otherTopic.pipeInput(KEY, apply("req-2", 3, null));
            demoTopic.pipeInput(KEY, apply("req-3", 3, null).replace("platform-team/ci", PoolRequest.REST_SOURCE));
        });

        var records = trail.readRecordsToList();
        assertThat(records)
                .as("the same events on audit-events, keyed by org")
                .extracting(r -> r.value())
                .containsExactlyElementsOf(lines);
        assertThat(records).extracting(r -> r.key()).containsExactly("demo", "demo", "demo");
        List<JsonNode> events =
                lines.stream().map(l -> Json.read(l, JsonNode.class)).toList();
        assertThat(events)
                .extracting(
                        e -> e.path("user").path("username").asText(),
                        e -> e.path("responseStatus").path("code").asInt(),
                        e -> e.path("objectRef").path("resource").asText())
                .containsExactly(
                        tuple("tenant-demo", 201, "nodepools"),
                        tuple("tenant-other", 403, "nodepool-requested"),
                        tuple("tenant-demo", 403, "nodepool-requested"));
        assertThat(events.get(0)
                        .at("/annotations/nodepool.coreweave.com~1request-id")
                        .asText())
                .isEqualTo("req-1");
        assertThat(events.get(0)
                        .at("/annotations/nodepool.coreweave.com~1cloudevent-source")
                        .asText())
                .isEqualTo("platform-team/ci");
        assertThat(events.get(1).path("responseStatus").path("reason").asText()).isEqualTo("Forbidden");
        assertThat(events.get(1).path("responseStatus").path("message").asText())
                .isEqualTo("a record for org demo on org other's topic nodepool-requested.other");
        assertThat(events.get(1).path("requestURI").asText())
                .as("the record where its writer put it, not its copy on the by-key topic")
                .startsWith("kafka:nodepool-requested.other/0/");
        assertThat(events.get(1).path("objectRef").path("name").asText()).isEqualTo("train");
        assertThat(events.get(2)
                        .at("/annotations/nodepool.coreweave.com~1cloudevent-source")
                        .asText())
                .as("the source it claimed, as its writer's word")
                .isEqualTo(PoolRequest.REST_SOURCE);
    }

    /** The audit lines {@code run} writes. */
    private static List<String> audited(Runnable run) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord entry) {
                lines.add(entry.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger audit = Logger.getLogger(AuditLog.CATEGORY);
        audit.setLevel(Level.INFO);
        audit.addHandler(capture);
        try {
            run.run();
        } finally {
            audit.removeHandler(capture);
        }
        return lines;
    }

    /** A request on the topic with the manifest {@code change} makes of the smallest one. */
    static String apply(String id, Consumer<ObjectNode> change) {
        ObjectNode pool = Json.read("""
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"train"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":1}}""", ObjectNode.class);
        change.accept(pool);
        return Json.string(CloudEvent.of(
                id,
                "platform-team/ci",
                NodePoolRequested.TYPE,
                KEY,
                NOW,
                Json.mapper().createObjectNode().put("operation", "APPLY").set("nodePool", pool)));
    }

    private static String reason(TestRecord<String, String> deadLetter) {
        return new String(deadLetter.headers().lastHeader("dlq.reason").value(), StandardCharsets.UTF_8);
    }

    /** Issue 25: every cause of 10,000 bad taints went into the dead letter's reason header. */
    @Test
    void aTopicRequestWithTenThousandBadTaintsIsDeadLetteredWithItsFirstCausesAndACount() {
        requests.pipeInput(KEY, apply("req-taints", pool -> {
            ArrayNode taints = ((ObjectNode) pool.get("spec")).putArray("nodeTaints");
            for (int i = 0; i < 10_000; i++) {
                taints.addObject().put("key", "-bad-" + i).put("effect", "Sometimes");
            }
        }));

        TestRecord<String, String> refused = dlq.readRecord();
        String reason = reason(refused);
        int listed = reason.split("; ").length;
        assertThat(reason.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(Limits.MAX_DLQ_REASON_BYTES);
        assertThat(reason)
                .startsWith("data.nodePool is invalid: spec.nodeTaints: Too many: 10000: must have at most "
                        + "32 items; spec.nodeTaints[0].key: Invalid value: \"-bad-0\": ")
                .endsWith(" … (" + (20_001 - listed) + " more causes)");
        assertThat(new String(refused.headers().lastHeader("dlq.error").value(), StandardCharsets.UTF_8))
                .isEqualTo("InvalidSpec");
        assertThat(accepted.readValuesToList()).isEmpty();
    }

    @Test
    void aTopicRequestForAPoolTooLargeToStoreIsDeadLetteredWithWhyAndShownOnThePool() {
        requests.pipeInput(KEY, apply("req-1", 2, null));
        // Within the bounds of annotations in UTF-8, but six times as large as JSON.
        requests.pipeInput(
                KEY,
                apply(
                        "req-large",
                        pool -> ((ObjectNode) pool.get("metadata"))
                                .putObject("annotations")
                                .put("note", "\u0001".repeat(50 * 1024))));

        String reason = reason(dlq.readRecord());
        assertThat(reason)
                .startsWith("NodePool \"train\" is invalid: metadata: Too long: the NodePool as stored "
                        + "(metadata with managedFields, and spec) must have at most 262144 bytes of JSON");
        assertThat(events.readValuesToList())
                .anyMatch(e -> e.contains("CWNodePoolNodesRequestFailed") && e.contains("req-large"));
        assertThat(lastStatus().metadata().annotations()).isNull();
    }

    @Test
    void aPoolOfATypeCataloguedLaterIsJudgedAgainOnTheNextRevalidation() {
        String pool = apply("req-1", 1, null).replace("gd-8xa100-i128", "gd-1xa100");
        requests.pipeInput(KEY, pool);
        assertThat(lastStatus().status().condition(Conditions.VALIDATED).status())
                .isEqualTo("False");

        InstanceTypes.publish(
                driver,
                new InstanceType("gd-1xa100", "1x A100", "A100", 1, 16, 256, false, List.of(InstanceTypes.ZONE)));
        driver.driver().advanceWallClockTime(new Defaults().revalidateInterval());

        assertThat(lastStatus().status().condition(Conditions.VALIDATED).reason())
                .isEqualTo("Valid");
        driver.driver().advanceWallClockTime(new Defaults().revalidateInterval());
        assertThat(status.isEmpty()).as("nothing left to judge again").isTrue();
    }

    @Test
    void anOrgCreatesAsManyPoolsAsItsCountQuotaAllowsAndEveryUpdateOfThemStillGoesThrough() {
        // Org "tiny" may have 2 pools (Defaults); a third create is refused as Kubernetes refuses one past
        // count/<resource>.
        requests.pipeInput("tiny/a", create("tiny", "a", "c-1", 1));
        requests.pipeInput("tiny/b", create("tiny", "b", "c-2", 1));
        requests.pipeInput("tiny/c", create("tiny", "c", "c-3", 1));
        requests.pipeInput("tiny/a", create("tiny", "a", "c-4", 3));
        requests.pipeInput("demo/c", create("demo", "c", "c-5", 1));

        List<RequestDecided> answers = decided.readValuesToList().stream()
                .map(v -> Json.read(v, RequestDecided.class))
                .toList();
        assertThat(answers)
                .extracting(RequestDecided::outcome)
                .containsExactly(
                        RequestDecided.Outcome.CREATED,
                        RequestDecided.Outcome.CREATED,
                        RequestDecided.Outcome.REJECTED,
                        RequestDecided.Outcome.UPDATED,
                        RequestDecided.Outcome.CREATED);
        assertThat(answers.get(2).error().getCode()).isEqualTo(403);
        assertThat(answers.get(2).error().getMessage())
                .contains("exceeded quota: count/nodepools.compute.coreweave.com", "used: 2, limited: 2");
        var refused = dlq.readRecordsToList();
        assertThat(refused).hasSize(1);
        assertThat(refused.get(0).key()).isEqualTo("tiny/c");
        assertThat(new String(refused.get(0).headers().lastHeader("dlq.error").value()))
                .isEqualTo("Forbidden");
        var counts = driver.output(Topics.ORG_POOLS_COUNTED).readKeyValuesToMap();
        assertThat(counts.get("tiny/0")).contains("\"pools\":2");
        assertThat(counts.get("demo/0")).contains("\"pools\":1");
    }

    static String create(String org, String pool, String id, int target) {
        JsonNode manifest = Json.mapper().valueToTree(Json.read("""
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":%d}}""".formatted(pool, target), JsonNode.class));
        return Json.string(CloudEvent.of(
                id,
                "platform-team/ci",
                NodePoolRequested.TYPE,
                org + "/" + pool,
                NOW,
                Json.mapper().createObjectNode().put("operation", "APPLY").set("nodePool", manifest)));
    }

    static final class Defaults implements ApiSettings {
        public String defaultZone() {
            return "US-EAST-04A";
        }

        public Duration requestTimeout() {
            return Duration.ofSeconds(15);
        }

        public Duration moveWait() {
            return Duration.ofSeconds(10);
        }

        public Duration requestIdRetention() {
            return Duration.ofHours(24);
        }

        public Duration eventRetention() {
            return Duration.ofHours(1);
        }

        public Duration watchBookmarkInterval() {
            return Duration.ofSeconds(30);
        }

        public Duration revalidateInterval() {
            return Duration.ofSeconds(5);
        }

        public int poolCountLimit() {
            return 1000;
        }

        public Map<String, Integer> poolCountLimitPerOrg() {
            return Map.of("tiny", 2);
        }

        public long poolStorageLimit() {
            return 16 * 1024 * 1024;
        }

        public Map<String, Long> poolStorageLimitPerOrg() {
            return Map.of("snug", 4 * 4096L);
        }
    }

    private static String delete(String id) {
        return Json.string(CloudEvent.of(
                id,
                "platform-team/ci",
                NodePoolRequested.TYPE,
                KEY,
                NOW,
                Json.mapper()
                        .createObjectNode()
                        .put("operation", "DELETE")
                        .set(
                                "nodePool",
                                Json.mapper()
                                        .createObjectNode()
                                        .set(
                                                "metadata",
                                                Json.mapper().createObjectNode().put("name", "train")))));
    }

    @Test
    void aDeletedPoolsEventsAreKeptForTheRetentionThenForgotten() {
        driver.close();
        driver = StreamsDriver.start(
                "api-test",
                NOW,
                clock -> ApiTopology.build(
                        new Defaults(), 1, clock, (key, answer) -> {}, new PoolConditionGauges(registry)));
        InstanceTypes.publish(driver, InstanceTypes.A100);
        driver.input(Topics.NODEPOOL_REQUESTED).pipeInput(KEY, apply("req-1", 1, null));
        TestOutputTopic<String, String> acceptedPools = driver.output(Topics.NODEPOOL_ACCEPTED);
        PoolRef ref = PoolRef.of(Json.read(
                acceptedPools.readValuesToList().get(0), com.coreweave.nodepool.schema.events.NodePoolAccepted.class));
        driver.input(Topics.NODEPOOL_REQUESTED).pipeInput(KEY, delete("req-2"));
        driver.input(Topics.NODEPOOL_NODES_CHANGED)
                .pipeInput(
                        KEY,
                        Json.string(new NodeFact.NodePoolReconciled(
                                ref, 0, 0, 0, 0, null, null, List.of(), true, true, false, null, NOW)));

        var kept = driver.<String, DeletedPoolEvents>store(StoreNames.DELETED_POOL_EVENTS);
        String key = KEY + "/" + ref.uid();
        assertThat(driver.<String, Object>store(StoreNames.POOL_VIEWS).get(KEY)).isNull();
        assertThat(kept.get(key).events())
                .extracting(e -> e.getReason())
                .containsExactly("CWNodePoolCreated", "CWNodePoolDeleted");

        driver.elapse(Duration.ofMinutes(59), Duration.ofMinutes(1));
        assertThat(kept.get(key)).as("kept within the hour").isNotNull();
        driver.elapse(Duration.ofMinutes(2), Duration.ofMinutes(1));
        assertThat(kept.get(key)).as("forgotten after the hour").isNull();
    }

    /** Creates the pool, passes over the Events its creation published, and says its uid. */
    private String createdUid() {
        requests.pipeInput(KEY, apply("req-1", 2, null));
        String uid = Json.read(decided.readValuesToList().getFirst(), RequestDecided.class)
                .nodePool()
                .metadata()
                .uid();
        events.readValuesToList();
        return uid;
    }

    @Test
    void aNodeEventTheReferenceListsForNodeAndNodePoolIsPublishedOnBoth() {
        String uid = createdUid();
        PoolRef ref = new PoolRef("demo", "train", uid, 1, "US-EAST-04A", "gd-8xa100-i128", "default");
        var cordoned = RecordedEvent.ofNode(
                ref, "node-1", CwEvent.CWNodeCordoned, "Node node-1 cordoned: scale-down.", "c-1", "test", NOW);
        var staged = RecordedEvent.ofNode(
                ref, "node-1", CwEvent.CWConfigStaged, "Node configuration staged.", "c-2", "test", NOW);
        var recorded = Json.string(new RecordedEvents(List.of(cordoned, staged)));

        driver.input(Topics.NODEPOOL_EVENT_RECORDED).pipeInput(KEY, recorded);
        driver.input(Topics.NODEPOOL_EVENT_RECORDED).pipeInput(KEY, recorded);

        assertThat(events.readValuesToList().stream()
                        .map(v -> Json.read(v, io.fabric8.kubernetes.api.model.Event.class))
                        .toList())
                .as("once each, the replay recognised")
                .extracting(
                        e -> e.getReason(),
                        e -> e.getInvolvedObject().getKind(),
                        e -> e.getInvolvedObject().getName())
                .containsExactly(
                        tuple("CWNodeCordoned", "Node", "node-1"),
                        tuple("CWNodeCordoned", "NodePool", "train"),
                        tuple("CWConfigStaged", "Node", "node-1"));
    }

    /** The sealed PoolInput: each topic's record reaches the processor as its own input and is handled as such. */
    @Test
    void aRecordedEventReachesThePoolProcessorAsItsOwnInputAndBecomesAKubernetesEvent() {
        String uid = createdUid();
        var recorded = new RecordedEvent(
                "ev-1",
                "demo",
                "train",
                uid,
                ObjectReference.nodePool("train", uid),
                "CWSealedInputSeen",
                "Normal",
                "seen through PoolInput.EventsRecorded",
                "test",
                NOW);

        driver.input(Topics.NODEPOOL_EVENT_RECORDED).pipeInput(KEY, Json.string(new RecordedEvents(List.of(recorded))));

        assertThat(events.readValuesToList()).singleElement().asString().contains("CWSealedInputSeen");
    }
}
