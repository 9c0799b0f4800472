package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.OtlpCollector;
import com.coreweave.nodepool.systemtest.harness.OtlpCollector.Span;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One pool's create is one trace, from its POST to the status that says its nodes are at target (AtTarget with reason
 * TargetMet), across the services it passes through, on the fault tests' stack, whose services export their spans to a
 * collector of the tests' own over OTLP, configured by the standard {@code quarkus.otel.*} settings alone
 * ({@link SystemStack#forFaults()}).
 */
@StackUse.Faults
class TracingIT {

    private static final String POOL = "traced";

    @Test
    void aPoolsCreateIsOneTraceFromItsPostToTheStatusThatSaysTargetMet() {
        Stack stack = SystemStack.forFaults();
        OtlpCollector collector = SystemStack.faultTraces();
        try (TopicProbe probe = new TopicProbe(stack.bootstrapServers())) {
            SystemStack.quota(stack, "demo", SpineIT.ZONE, SpineIT.TYPE, 2);
            SystemStack.fleet(stack, SpineIT.ZONE, SpineIT.TYPE, 2);
            Api demo = new Api(stack.url(Service.API), "demo-token");

            assertThat(demo.post(Api.POOLS, Api.pool(POOL, SpineIT.TYPE, 2)).code())
                    .isEqualTo(201);

            TopicProbe.Read targetMet = probe.awaitRecord(
                    Topics.NODEPOOL_STATUS.name(),
                    status -> ("demo/" + POOL).equals(status.key()) && "TargetMet".equals(atTarget(status)),
                    Duration.ofSeconds(60));
            String[] traceparent = targetMet.header("traceparent").split("-");
            String traceId = traceparent[1];
            String recordedIn = traceparent[2];
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<Span> trace = collector.trace(traceId);
                Map<String, Span> byId = trace.stream().collect(Collectors.toMap(Span::spanId, Function.identity()));
                assertThat(trace).filteredOn(Span::root).hasSize(1);
                Span root = trace.stream().filter(Span::root).findFirst().orElseThrow();
                assertThat(root.service()).isEqualTo(Service.API.module());
                assertThat(root.kind()).isEqualTo(OtlpCollector.Kind.SERVER);
                assertThat(root.name()).startsWith("POST ");
                assertThat(trace)
                        .as("one tree: every span's parent is in the trace")
                        .allMatch(span -> span.root() || byId.containsKey(span.parentSpanId()));
                assertThat(trace)
                        .extracting(Span::service)
                        .containsAll(Arrays.stream(Service.values())
                                .map(Service::module)
                                .toList());
                List<String> path = path(byId, recordedIn);
                assertThat(path)
                        .as("from the POST to the step that recorded TargetMet")
                        .startsWith(root.service() + ": " + root.name())
                        .containsSubsequence(
                                "nodepool-api-service: nodepool-api-service nodepool-requested",
                                "quota-service: quota-service quota-demanded",
                                "capacity-service: capacity-service capacity-demanded",
                                "provisioner-service: provisioner-service capacity-checked",
                                "provisioner-service: provisioner-service timer")
                        .endsWith("nodepool-api-service: nodepool-api-service nodepool-nodes-changed");
            });
        }
    }

    /** The spans from the root to {@code spanId}, as {@code <service>: <name>}. */
    private static List<String> path(Map<String, Span> byId, String spanId) {
        List<String> path = new ArrayList<>();
        for (Span span = byId.get(spanId); span != null; span = byId.get(span.parentSpanId())) {
            path.addFirst(span.service() + ": " + span.name());
        }
        return path;
    }

    /** The reason of a published pool's AtTarget condition; null for a tombstone or a pool without one. */
    private static String atTarget(TopicProbe.Read status) {
        if (status.value() == null) {
            return null;
        }
        try {
            for (JsonNode condition :
                    Json.mapper().readTree(status.value()).path("status").path("conditions")) {
                if ("AtTarget".equals(condition.path("type").asText())) {
                    return condition.path("reason").asText();
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
