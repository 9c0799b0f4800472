package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topic;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Poison on every topic a service consumes: for each topic each of the five services reads (taken from the services'
 * own consumer groups, see {@link ConsumedTopics}), records a careless or hostile producer could write — unreadable
 * JSON, JSON of the wrong shape, an object with none of the fields, no key, a key that does not match the value, a
 * tombstone where none belongs — each land exactly once in that service's dead-letter topic with the {@code dlq.*}
 * headers, and a good record after them on the same partition is processed (the service's committed offset passes it)
 * and not dead-lettered.
 *
 * <p>The good records are real ones: org {@code poison} drives one spot pool through every topic first (REST create,
 * activity, reconfigure, a quota, a fleet, a spot reclaim), and each topic's latest such record is sent again unchanged
 * after the poison, a redelivery every handler must take in its stride. The poison records carry a marker in their
 * value (or, a tombstone, in their key) and are keyed by the live pool, so a service that did not refuse them would
 * fold them into real state.
 */
@StackUse.Faults
class PoisonIT {

    static final String ORG = "poison";
    static final String POOL = "poison-spot";
    static final String ZONE = "EU-SOUTH-04A";
    static final String TYPE = "gd-8xl40s-i128";
    static final String WORKLOADS = "/apis/compute.coreweave.com/v1alpha1/workloads";
    static final Duration PROGRESS = Duration.ofSeconds(120);

    private static final Logger LOG = Logger.getLogger(PoisonIT.class.getName());

    static Stack stack;
    static Api api;

    /** One kind of bad record, made from a real record of the topic (its key and JSON value) and a unique marker. */
    enum Kind {
        NOT_JSON(sample -> sample.key(), (sample, marker) -> "not JSON at all " + marker),
        WRONG_SHAPE(sample -> sample.key(), (sample, marker) -> "[\"" + marker + "\"]"),
        NO_FIELDS(sample -> sample.key(), (sample, marker) -> "{\"poisonMarker\":\"" + marker + "\"}"),
        /** Only on topics that are not compacted: the broker refuses a record without a key on a compacted one. */
        NO_KEY(sample -> null, PoisonIT::marked),
        KEY_MISMATCH(sample -> sample.key() + "-elsewhere", PoisonIT::marked),
        /** Only on topics that are not compacted: there a record without a value means nothing. */
        TOMBSTONE(sample -> sample.key() + "-tombstone", (sample, marker) -> null);

        boolean appliesTo(Topic<?, ?> topic) {
            return !topic.compacted() || (this != NO_KEY && this != TOMBSTONE);
        }

        final Function<TopicProbe.Read, String> key;
        final BiFunction<TopicProbe.Read, String, String> value;

        Kind(Function<TopicProbe.Read, String> key, BiFunction<TopicProbe.Read, String, String> value) {
            this.key = key;
            this.value = value;
        }
    }

    /** A poison record as published: where it went and how to recognise it in a dead-letter topic. */
    record Poison(String topic, Kind kind, int partition, String key, String marker) {

        boolean matches(TopicProbe.Read dead) {
            return kind == Kind.TOMBSTONE
                    ? dead.value() == null && key.equals(dead.key())
                    : dead.value() != null && dead.value().contains(marker);
        }
    }

    @BeforeAll
    static void onePoolThroughEveryTopic() {
        stack = SystemStack.forFaults();
        api = new Api(stack.url(Service.API), SystemStack.token(ORG));
        SystemStack.quota(stack, ORG, ZONE, TYPE, 5);
        SystemStack.fleet(stack, ZONE, TYPE, 5);
        assertThat(api.post(
                                Api.POOLS,
                                SpotPreemptionIT.spotPool(POOL, TYPE, 2)
                                        .replace("\"targetNodes\"", "\"region\":\"" + ZONE + "\",\"targetNodes\""))
                        .code())
                .isEqualTo(201);
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(SpineIT.reason(api.get(Api.POOLS + "/" + POOL), "AtTarget"))
                        .isEqualTo("TargetMet/True"));
        String node = SpotPreemptionIT.nodeNames(api, POOL).get(0);
        assertThat(api.put(Api.POOLS + "/" + POOL + "/nodes/" + node + "/activity", "{\"active\": false}")
                        .code())
                .isEqualTo(202);
        assertThat(api.post(Api.POOLS + "/" + POOL + "/reconfigure", "{}").code())
                .isEqualTo(202);
        // An alert of the catalogue that is only recorded, so the node stays; and one node deleted (it is replaced).
        assertThat(SystemStack.admin(stack, Service.PROVISIONER)
                        .post("/admin/node-alerts", """
        {"type":"NodeAlertRaised","subject":"%s/%s","data":{"node":"%s","alert":"DPUContainerdThreadExhaustion"}}""".formatted(ORG, POOL, node))
                        .code())
                .isEqualTo(202);
        assertThat(api.delete(Api.POOLS + "/" + POOL + "/nodes/"
                                + SpotPreemptionIT.nodeNames(api, POOL).get(1))
                        .code())
                .isIn(200, 202);
        assertThat(SystemStack.admin(stack, Service.CAPACITY)
                        .post("/admin/fleet/" + ZONE + "/" + TYPE + "/reclaim-spot", "{\"nodes\": 1}")
                        .code())
                .isIn(200, 202);
        // A user's cordon (node-change-requested); an autoscaling pool (pool-offered) and a workload it is given
        // (workload-pending, pool-demand-planned).
        assertThat(api.patch("/api/v1/nodes/" + node, "{\"spec\":{\"unschedulable\":true}}")
                        .code())
                .isEqualTo(200);
        assertThat(api.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"poison-demand"},
         "spec":{"instanceType":"%s","region":"%s","autoscaling":true,"minNodes":0,"maxNodes":1,"targetNodes":0}}""".formatted(TYPE, ZONE)).code()).isEqualTo(201);
        assertThat(api.post(WORKLOADS, """
                        {"name":"poison-workload","pods":1,"needs":{"instanceType":"%s"}}""".formatted(TYPE)).code()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> api.get(Api.POOLS + "/poison-demand").number("/spec/targetNodes") == 1);
        // The release the fleet starts with, published again: changes nothing, and gives the topic a record.
        assertThat(SystemStack.admin(stack, Service.PROVISIONER)
                        .post(
                                "/admin/node-releases",
                                "{\"releaseTrain\":\"stable\",\"version\":\"2026.10.2\",\"summary\":[\"ncore image 2026.10.2\","
                                        + "\"Kubernetes v1.31.6\"]}")
                        .code())
                .isEqualTo(202);
    }

    @Test
    void everyPoisonRecordLandsOnceInItsServicesDeadLetterTopicAndTheNextGoodRecordIsProcessed() throws Exception {
        Map<Service, Set<String>> consumed = ConsumedTopics.of(stack.bootstrapServers());
        Set<String> topics = new TreeSet<>();
        consumed.values().forEach(topics::addAll);
        assertThat(topics)
                .as("topics the services consume")
                .contains(Topics.NODEPOOL_REQUESTED.name(), Topics.NODE_ACTIVITY_REPORTED.name());

        List<Poison> poison = new ArrayList<>();
        Map<String, TopicPartition> goodAt = new TreeMap<>();
        Map<TopicPartition, Long> good = new HashMap<>();
        try (TopicProbe kafka = new TopicProbe(stack.bootstrapServers())) {
            int n = 0;
            for (String topic : topics) {
                TopicProbe.Read sample = sample(kafka, topic);
                for (Kind kind : Kind.values()) {
                    if (!kind.appliesTo(registered(topic))) {
                        continue;
                    }
                    // Fixed width, so that no marker is a prefix of another.
                    String marker = String.format("poison-%d-%04d", System.currentTimeMillis(), n++);
                    String key = kind.key.apply(sample);
                    key = kind == Kind.TOMBSTONE ? key + "-" + n : key;
                    kafka.send(topic, sample.partition(), key, kind.value.apply(sample, marker), Map.of());
                    poison.add(new Poison(topic, kind, sample.partition(), key, marker));
                }
                RecordMetadata again = kafka.send(topic, sample.partition(), sample.key(), sample.value(), Map.of());
                goodAt.put(topic, new TopicPartition(topic, again.partition()));
                good.put(goodAt.get(topic), again.offset());
            }

            awaitProgress(consumed, good);

            SoftAssertions soft = new SoftAssertions();
            Map<String, List<TopicProbe.Read>> deadLetters = new TreeMap<>();
            for (var entry : consumed.entrySet()) {
                Service service = entry.getKey();
                for (String topic : entry.getValue()) {
                    String dlq = ConsumedTopics.deadLetters(topic, service);
                    List<TopicProbe.Read> refused = deadLetters.computeIfAbsent(dlq, kafka::readAll).stream()
                            .filter(r -> service.module().equals(r.header(DeadLetters.SERVICE))
                                    && topic.equals(r.header(DeadLetters.SOURCE_TOPIC)))
                            .toList();
                    for (Poison p :
                            poison.stream().filter(p -> p.topic().equals(topic)).toList()) {
                        List<TopicProbe.Read> found =
                                refused.stream().filter(p::matches).toList();
                        String row = service.module() + " <- " + topic + " " + p.kind();
                        soft.assertThat(found)
                                .as("%s: in %s exactly once", row, dlq)
                                .hasSize(1);
                        found.forEach(r -> {
                            for (String h : List.of(
                                    DeadLetters.REASON,
                                    DeadLetters.ERROR,
                                    DeadLetters.SOURCE_PARTITION,
                                    DeadLetters.SOURCE_OFFSET,
                                    DeadLetters.FAILED_AT)) {
                                soft.assertThat(r.header(h))
                                        .as("%s: header %s", row, h)
                                        .isNotBlank();
                            }
                            soft.assertThat(r.header(DeadLetters.SOURCE_PARTITION))
                                    .as("%s: partition", row)
                                    .isEqualTo(Integer.toString(p.partition()));
                        });
                    }
                    TopicPartition goodPartition = goodAt.get(topic);
                    long offset = good.get(goodPartition);
                    // Other tests share the stack: only this exact record (partition and offset) is ours.
                    soft.assertThat(refused.stream()
                                    .filter(r -> Long.toString(offset).equals(r.header(DeadLetters.SOURCE_OFFSET))
                                            && Integer.toString(goodPartition.partition())
                                                    .equals(r.header(DeadLetters.SOURCE_PARTITION)))
                                    .toList())
                            .as(
                                    "%s <- %s: the good record after the poison is not dead-lettered",
                                    service.module(), topic)
                            .isEmpty();
                }
            }
            LOG.info(
                    () -> poison.size() + " poison records on " + topics.size() + " topics, checked in the dead-letter "
                            + "topics of "
                            + consumed.values().stream().mapToInt(Set::size).sum() + " (service, topic) pairs: "
                            + consumed);
            for (Service service : Service.values()) {
                soft.assertThat(stack.ready(service))
                        .as("%s is still ready", service.module())
                        .isTrue();
            }
            soft.assertAll();
        }
    }

    /** Waits until every service has committed past the good record of each topic it consumes. */
    private static void awaitProgress(Map<Service, Set<String>> consumed, Map<TopicPartition, Long> good) {
        try (Admin admin = Admin.create(ClientSecurity.client(stack.bootstrapServers()))) {
            List<String> behind = new ArrayList<>();
            try {
                await().atMost(PROGRESS).pollInterval(Duration.ofSeconds(1)).until(() -> {
                    behind.clear();
                    for (var entry : consumed.entrySet()) {
                        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                                        entry.getKey().module())
                                .partitionsToOffsetAndMetadata()
                                .get(10, TimeUnit.SECONDS);
                        good.forEach((partition, offset) -> {
                            OffsetAndMetadata at = committed.get(partition);
                            if (entry.getValue().contains(partition.topic()) && (at == null || at.offset() <= offset)) {
                                behind.add(entry.getKey().module() + " at " + partition + "@"
                                        + (at == null ? "-" : at.offset()) + ", good record @" + offset);
                            }
                        });
                    }
                    return behind.isEmpty();
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(
                        "within " + PROGRESS.toSeconds() + " s these services did not get past the "
                                + "poison to the good record after it: " + behind,
                        e);
            }
        }
    }

    /** The latest record of org {@code poison}'s pool or ledger on the topic, else (release trains) the latest one. */
    private static TopicProbe.Read sample(TopicProbe kafka, String topic) {
        List<TopicProbe.Read> records = kafka.readAll(topic).stream()
                .filter(r -> r.key() != null && r.value() != null && r.value().startsWith("{"))
                .toList();
        List<TopicProbe.Read> ours = records.stream()
                .filter(r -> r.key().startsWith(ORG + "/") || r.key().equals(ZONE + "/" + TYPE))
                .toList();
        List<TopicProbe.Read> from = ours.isEmpty() ? records : ours;
        if (topic.equals(Topics.NODEPOOL_NODES_CHANGED.name())) {
            // The capacity- and preemption-service skip, unparsed, the kinds of node fact they never use
            // (Inputs.readKinds); a removed node is a kind every reader of the topic reads.
            from = from.stream()
                    .filter(r -> r.value().contains("\"" + NodeFact.KIND + "\":\"NodeRemoved\""))
                    .toList();
        }
        assertThat(from)
                .as("a record on %s to make poison of (the set-up should have written one)", topic)
                .isNotEmpty();
        return from.get(from.size() - 1);
    }

    /** The sample's JSON object with a marker field added: a real record, recognisable in a dead-letter topic. */
    private static String marked(TopicProbe.Read sample, String marker) {
        try {
            ObjectNode value = (ObjectNode) Json.mapper().readTree(sample.value());
            return Json.string(value.put("poisonMarker", marker));
        } catch (Exception e) {
            throw new IllegalStateException("the sample of " + sample.topic() + " is not a JSON object", e);
        }
    }

    private static Topic<?, ?> registered(String topic) {
        return Topics.all().stream()
                .filter(t -> t.name().equals(topic))
                .findFirst()
                .orElseThrow();
    }
}
