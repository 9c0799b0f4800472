package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import com.coreweave.nodepool.testing.TopicProbe;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;

/**
 * The continuous mixed load of the fault harness, one thread per kind of client: REST creates, scales and deletes from
 * each org; {@code NodePoolRequested} CloudEvents published to random explicit partitions of
 * {@code nodepool-requested}; node activity reports, also on random partitions; spot reclaims through the
 * capacity-service's admin API; and now and then a poison record. It records what was acknowledged (a REST 2xx, a
 * record the broker took) and every request it sent, for the checks after the faults. Pools of each org are named
 * {@code r<n>} (REST) and {@code t<n>} (topic); the last two REST pools of the last org are spot pools.
 */
final class ChaosLoad implements AutoCloseable {

    /** An acknowledged request: its id when the client chose it, else the resourceVersion the answer carried. */
    record Ack(String key, String requestId, String resourceVersion, Instant at) {}

    /** A request sent, answered or not: which pool it was about, and when. */
    record Sent(String key, Instant at) {}

    /** A poison record sent, recognisable in a dead-letter topic by its key (unique, with the marker). */
    record Poison(String topic, int partition, String key, String marker, Instant at) {}

    static final int POOLS_PER_ORG = 6;

    final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
    final Queue<Sent> sent = new ConcurrentLinkedQueue<>();
    final Queue<Poison> poison = new ConcurrentLinkedQueue<>();
    final AtomicInteger unanswered = new AtomicInteger();
    /** What the REST clients saw of the API's instances. */
    final RestAvailability availability = new RestAvailability();

    private final Stack stack;
    private final String zone;
    private final String type;
    private final List<String> orgs;
    private final long seed;
    private final String run = Long.toString(System.currentTimeMillis(), 36);
    private final AtomicInteger counter = new AtomicInteger();
    private final List<Thread> threads = new ArrayList<>();
    private final List<TopicProbe> producers = new ArrayList<>();
    private volatile boolean running = true;
    private int requestPartitions;
    private int activityPartitions;

    ChaosLoad(Stack stack, String zone, String type, List<String> orgs, long seed) {
        this.stack = stack;
        this.zone = zone;
        this.type = type;
        this.orgs = orgs;
        this.seed = seed;
    }

    ChaosLoad start() {
        try (Admin admin = Admin.create(ClientSecurity.client(stack.bootstrapServers()))) {
            var topics = admin.describeTopics(
                            List.of(Topics.NODEPOOL_REQUESTED.name(), Topics.NODE_ACTIVITY_REPORTED.name()))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            requestPartitions =
                    topics.get(Topics.NODEPOOL_REQUESTED.name()).partitions().size();
            activityPartitions = topics.get(Topics.NODE_ACTIVITY_REPORTED.name())
                    .partitions()
                    .size();
        } catch (Exception e) {
            throw new IllegalStateException("cannot describe the inbound topics", e);
        }
        for (int i = 0; i < orgs.size(); i++) {
            String org = orgs.get(i);
            boolean spot = i == orgs.size() - 1;
            loop("rest-" + org, 400, 800, random -> rest(org, spot, random));
        }
        TopicProbe requests = producer();
        loop("topic-requests", 300, 600, random -> topicRequest(requests, random));
        TopicProbe reports = producer();
        loop("activity", 500, 900, random -> activity(reports, random));
        TopicProbe bad = producer();
        loop("poison", 1500, 2500, random -> poison(bad, random));
        loop("spot-reclaims", 8000, 12000, random -> reclaim());
        return this;
    }

    /**
     * Stops every client and waits for it, then the workloads finish: every node is reported idle, twice a few seconds
     * apart since reports go to random partitions and a late "busy" may be read after the first "idle". Otherwise an
     * IdleOnly pool (the default) rightly keeps a busy node above its target for good, and the checks would count it as
     * held beyond what quota admits.
     */
    @Override
    public void close() {
        running = false;
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            TopicProbe reports = producer();
            for (int sweep = 0; sweep < 2; sweep++) {
                Thread.sleep(3000);
                everyNodeIdle(reports, new Random(seed + sweep));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            producers.forEach(TopicProbe::close);
        }
    }

    private void everyNodeIdle(TopicProbe kafka, Random random) {
        for (String org : orgs) {
            Api api = api(org);
            for (int n = 0; n < POOLS_PER_ORG; n++) {
                for (String name : List.of("r" + n, "t" + n)) {
                    try {
                        for (JsonNode node : nodes(api, name)) {
                            report(
                                    kafka,
                                    random,
                                    new NodeActivityReported(
                                            org, name, node.at("/metadata/name").asText(), false, 0, Instant.now()));
                        }
                    } catch (RuntimeException e) {
                        unanswered.incrementAndGet();
                    }
                }
            }
        }
    }

    /** An org's REST client, spread over every api-service instance as a load balancer would. */
    private Api api(String org) {
        return new Api(stack.urls(Service.API), SystemStack.token(org), availability);
    }

    /** One producer per client thread: a probe creates its producer on first use. */
    private TopicProbe producer() {
        TopicProbe probe = new TopicProbe(stack.bootstrapServers());
        producers.add(probe);
        return probe;
    }

    private interface Step {
        void run(Random random) throws Exception;
    }

    /** Runs a client until {@link #close()}, pausing between its steps; a step that fails counts as unanswered. */
    private void loop(String name, int minPauseMillis, int maxPauseMillis, Step step) {
        Random random = new Random(seed * 31 + threads.size());
        threads.add(Thread.ofPlatform().name("chaos-" + name).start(() -> {
            try {
                while (running) {
                    try {
                        step.run(random);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        unanswered.incrementAndGet();
                    }
                    Thread.sleep(minPauseMillis + random.nextInt(maxPauseMillis - minPauseMillis));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
    }

    private void rest(String org, boolean spotOrg, Random random) {
        Api api = api(org);
        int n = random.nextInt(POOLS_PER_ORG);
        String name = "r" + n;
        String key = org + "/" + name;
        int op = random.nextInt(100);
        Instant at = Instant.now();
        sent.add(new Sent(key, at));
        if (op < 35) {
            String idempotencyKey = UUID.randomUUID().toString();
            boolean spot = spotOrg && n >= POOLS_PER_ORG - 2;
            Api.Answer answer = api.post(Api.POOLS, pool(name, 1 + random.nextInt(4), spot), idempotencyKey);
            if (answer.code() / 100 == 2) {
                acks.add(new Ack(key, "idempotency-key:" + idempotencyKey, null, at));
            }
        } else {
            Api.Answer answer = op < 80
                    ? api.patch(Api.POOLS + "/" + name, "{\"spec\":{\"targetNodes\":" + random.nextInt(6) + "}}")
                    : api.delete(Api.POOLS + "/" + name);
            if (answer.code() / 100 == 2) {
                acks.add(new Ack(key, null, answer.text("/metadata/resourceVersion"), at));
            }
        }
    }

    private void topicRequest(TopicProbe kafka, Random random) {
        String org = orgs.get(random.nextInt(orgs.size()));
        String name = "t" + random.nextInt(POOLS_PER_ORG);
        String key = org + "/" + name;
        boolean delete = random.nextInt(5) == 0;
        String id = "chaos-" + run + "-" + counter.incrementAndGet();
        NodePoolSpec spec = delete
                ? null
                : new NodePoolSpec(
                        null,
                        type,
                        random.nextInt(6),
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        zone);
        String event = Json.string(CloudEvent.of(
                id,
                "platform-team/chaos",
                NodePoolRequested.TYPE,
                key,
                Instant.now(),
                new NodePoolRequested(
                        delete ? NodePoolRequested.Operation.DELETE : NodePoolRequested.Operation.APPLY,
                        NodePool.of(ObjectMeta.named(name), spec, null))));
        Instant at = Instant.now();
        sent.add(new Sent(key, at));
        kafka.send(Topics.NODEPOOL_REQUESTED.name(), random.nextInt(requestPartitions), key, event, Map.of());
        acks.add(new Ack(key, id, null, at));
    }

    /** A node of one of an org's pools reported busy or idle, as a platform team's agent would. */
    private void activity(TopicProbe kafka, Random random) {
        String org = orgs.get(random.nextInt(orgs.size()));
        String name = (random.nextBoolean() ? "r" : "t") + random.nextInt(POOLS_PER_ORG);
        JsonNode nodes = nodes(api(org), name);
        if (nodes.isEmpty()) {
            return;
        }
        String node =
                nodes.get(random.nextInt(nodes.size())).at("/metadata/name").asText();
        report(
                kafka,
                random,
                new NodeActivityReported(org, name, node, random.nextBoolean(), random.nextInt(30), Instant.now()));
    }

    private static JsonNode nodes(Api api, String pool) {
        return api.get(Api.POOLS + "/" + pool + "/nodes").body().path("items");
    }

    /** Publishes {@code report} to a random partition of {@code node-activity-reported}, as any client may. */
    private void report(TopicProbe kafka, Random random, NodeActivityReported report) {
        kafka.send(
                Topics.NODE_ACTIVITY_REPORTED.name(),
                random.nextInt(activityPartitions),
                report.org() + "/" + report.pool(),
                Json.string(report),
                Map.of());
    }

    /** Unreadable JSON, or a good-looking record whose key names another pool, on a random partition. */
    private void poison(TopicProbe kafka, Random random) {
        boolean request = random.nextBoolean();
        String topic = request ? Topics.NODEPOOL_REQUESTED.name() : Topics.NODE_ACTIVITY_REPORTED.name();
        int partition = random.nextInt(request ? requestPartitions : activityPartitions);
        String org = orgs.get(random.nextInt(orgs.size()));
        String marker = "chaos-poison-" + run + "-" + counter.incrementAndGet();
        String key = org + "/" + marker;
        String value;
        if (random.nextBoolean()) {
            value = "{\"not JSON: " + marker;
        } else if (request) {
            value = Json.string(CloudEvent.of(
                    marker,
                    "platform-team/chaos",
                    NodePoolRequested.TYPE,
                    org + "/elsewhere",
                    Instant.now(),
                    new NodePoolRequested(
                            NodePoolRequested.Operation.DELETE,
                            NodePool.of(ObjectMeta.named("elsewhere"), null, null))));
        } else {
            value = Json.string(new NodeActivityReported(org, "elsewhere", marker, true, null, Instant.now()));
        }
        Instant at = Instant.now();
        kafka.send(topic, partition, key, value, Map.of());
        poison.add(new Poison(topic, partition, key, marker, at));
    }

    private void reclaim() {
        SystemStack.admin(stack, Service.CAPACITY)
                .post("/admin/fleet/" + zone + "/" + type + "/reclaim-spot", "{\"nodes\": 1}");
    }

    private String pool(String name, int target, boolean spot) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":%d%s}}""".formatted(name, type, zone, target, spot ? ",\"computeClass\":\"spot\"" : "");
    }
}
