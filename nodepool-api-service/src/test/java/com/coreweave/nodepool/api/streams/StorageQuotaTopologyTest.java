package com.coreweave.nodepool.api.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.RequestDecided.Outcome;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.InstanceTypes;
import com.coreweave.nodepool.testing.StreamsDriver;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.ZoneOffset;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The storage quota on the api-service's topology: org "snug" may store 4 blocks of 4 KiB (ApiTopologyTest.Defaults); a
 * create or an update that would pass it is 403, a shrink is taken, a delete frees its blocks, and the bytes travel in
 * the count record a create writes anyway.
 */
class StorageQuotaTopologyTest {

    private StreamsDriver driver;
    private TestInputTopic<String, String> requests;
    private TestOutputTopic<String, String> decided;
    private TestOutputTopic<String, String> counted;

    @BeforeEach
    void start() {
        driver = StreamsDriver.start(
                "api-storage-test",
                ApiTopologyTest.NOW,
                clock -> ApiTopology.build(
                        new ApiTopologyTest.Defaults(),
                        1,
                        Clock.fixed(ApiTopologyTest.NOW, ZoneOffset.UTC),
                        (key, answer) -> {},
                        new PoolConditionGauges(new SimpleMeterRegistry())));
        InstanceTypes.publish(driver, InstanceTypes.A100);
        requests = driver.input(Topics.NODEPOOL_REQUESTED);
        decided = driver.output(Topics.NODEPOOL_REQUEST_DECIDED);
        counted = driver.output(Topics.ORG_POOLS_COUNTED);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void anOrgStoresUpToItsByteQuotaAndAWritePastItIsForbidden() {
        assertThat(send("snug", "small", "APPLY", 0)).isEqualTo(Outcome.CREATED);
        assertThat(send("snug", "large", "APPLY", 6000)).isEqualTo(Outcome.CREATED);
        assertThat(lastCount().bytes()).isEqualTo(3 * 4096);
        assertThat(send("snug", "fits", "APPLY", 0)).isEqualTo(Outcome.CREATED);

        RequestDecided refused = answer("snug", "over", "APPLY", 0);
        assertThat(refused.outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(refused.error().getCode()).isEqualTo(403);
        assertThat(refused.error().getReason()).isEqualTo("Forbidden");
        assertThat(refused.error().getMessage())
                .isEqualTo("nodepools.compute.coreweave.com \"over\" is forbidden: exceeded quota: "
                        + "storage/nodepools.compute.coreweave.com, requested: 4096, used: 16384, limited: 16384");
        // Growing a pool past the quota is refused as a create is; another org is not held to snug's quota.
        assertThat(send("snug", "small", "APPLY", 6000)).isEqualTo(Outcome.REJECTED);
        assertThat(send("roomy", "over", "APPLY", 6000)).isEqualTo(Outcome.CREATED);
    }

    @Test
    void aShrinkOrADeleteGivesItsBlocksBack() {
        send("snug", "large", "APPLY", 10_000);
        send("snug", "small", "APPLY", 0);
        assertThat(lastCount().bytes()).isEqualTo(4 * 4096);
        assertThat(send("snug", "more", "APPLY", 0)).isEqualTo(Outcome.REJECTED);

        assertThat(send("snug", "large", "APPLY", 0)).isEqualTo(Outcome.UPDATED);
        assertThat(lastCount().bytes()).isEqualTo(2 * 4096);
        assertThat(send("snug", "more", "APPLY", 0)).isEqualTo(Outcome.CREATED);
        assertThat(send("snug", "more", "DELETE", 0)).isEqualTo(Outcome.DELETING);
    }

    @Test
    void anUpdateThatKeepsItsBlocksWritesNoCount() {
        send("snug", "small", "APPLY", 0);
        counted.readRecordsToList();

        assertThat(send("snug", "small", "APPLY", 100)).isEqualTo(Outcome.UPDATED);

        assertThat(counted.isEmpty()).isTrue();
    }

    private OrgPoolCount lastCount() {
        var all = counted.readValuesToList();
        assertThat(all).isNotEmpty();
        return Json.read(all.get(all.size() - 1), OrgPoolCount.class);
    }

    private Outcome send(String org, String pool, String operation, int annotationBytes) {
        return answer(org, pool, operation, annotationBytes).outcome();
    }

    private RequestDecided answer(String org, String pool, String operation, int annotationBytes) {
        decided.readRecordsToList();
        ObjectNode manifest = (ObjectNode) Json.mapper().valueToTree(Json.read("""
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"gd-8xa100-i128","targetNodes":0}}""".formatted(pool), JsonNode.class));
        if (annotationBytes > 0) {
            ((ObjectNode) manifest.get("metadata"))
                    .putObject("annotations")
                    .put("example.com/notes", "x".repeat(annotationBytes));
        }
        requests.pipeInput(
                org + "/" + pool,
                Json.string(CloudEvent.of(
                        org + "-" + pool + "-" + operation + "-" + annotationBytes + "-" + System.nanoTime(),
                        "platform-team/ci",
                        NodePoolRequested.TYPE,
                        org + "/" + pool,
                        ApiTopologyTest.NOW,
                        Json.mapper()
                                .createObjectNode()
                                .put("operation", operation)
                                .set("nodePool", manifest))));
        var answers = decided.readValuesToList();
        assertThat(answers).hasSize(1);
        return Json.read(answers.get(0), RequestDecided.class);
    }
}
