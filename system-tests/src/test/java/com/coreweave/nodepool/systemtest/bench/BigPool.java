package com.coreweave.nodepool.systemtest.bench;

import static com.coreweave.nodepool.systemtest.bench.Phases.log;

import com.coreweave.nodepool.systemtest.StaticTokenProperty;
import com.coreweave.nodepool.systemtest.bench.BenchClient.Answer;
import com.coreweave.nodepool.systemtest.bench.PoolTracker.Trace;
import com.coreweave.nodepool.systemtest.bench.ReportTables.Row;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Benchmark 7 (issue 25, big pools are normal): one org creates a pool of {@code big-pool-nodes} nodes and another org
 * {@code big-pool-small-pools} one-node pools right after it, each org in a ledger of its own whose fleet and quota the
 * phase sets first. How long the big pool takes to reach TargetMet, and whether the small ones wait for it. It runs
 * last, so its nodes weigh on no other figure, and a big pool that never gets there is reported as such after
 * {@code big-pool-timeout-seconds}; then it is deleted.
 */
final class BigPool {

    static final String BIG_ORG = "bench-big";
    static final String SMALL_ORG = "bench-small";
    private static final String NAME = "big-pool";

    private final int nodes = Settings.integer("big-pool-nodes", 5000);
    private final int smallPools = Settings.integer("big-pool-small-pools", 20);
    private final String ledger = Settings.text("big-pool-ledger", "US-WEST-04A/gd-8xa100-i128");
    private final String smallLedger = Settings.text("big-pool-small-ledger", "US-EAST-04A/gd-8xh100ib-i128");
    private final Duration timeout = Duration.ofSeconds(Settings.integer("big-pool-timeout-seconds", 600));

    private final ObjectMapper json = new ObjectMapper();
    private final BenchClient client = new BenchClient();
    private final List<String> notes;
    private Stack stack;
    private PoolTracker tracker;
    private Trace big;
    private final Samples small = new Samples();
    /** What the big pool got when it did not reach TargetMet, or null. */
    private String unmet;

    private PhaseCost cost;
    private final Samples deleted = new Samples();
    private String deleteNote;

    /** {@code notes}: the report's notes, where failed calls are written. */
    BigPool(List<String> notes) {
        this.notes = notes;
    }

    int nodes() {
        return nodes;
    }

    int smallPools() {
        return smallPools;
    }

    long timeoutSeconds() {
        return timeout.toSeconds();
    }

    boolean ran() {
        return big != null;
    }

    /** The machines each ledger gets on top of its plan when this phase begins. */
    Map<String, Integer> extraMachines() {
        Map<String, Integer> extra = new LinkedHashMap<>();
        if (nodes > 0) {
            extra.merge(ledger, nodes, Integer::sum);
            extra.merge(smallLedger, smallPools, Integer::sum);
        }
        return extra;
    }

    /** Where the phase adds machines, for the report's fleet line. */
    String fleetSummary() {
        return nodes == 0
                ? null
                : "benchmark 7, at its start: " + ledger + " + " + nodes + " (the big pool), " + smallLedger + " + "
                        + smallPools + " (the small pools)";
    }

    /** The two orgs' tokens, for the api-service. */
    void addTokens(Stack.Builder builder) {
        if (nodes == 0) {
            return;
        }
        for (String org : List.of(BIG_ORG, SMALL_ORG)) {
            builder.withProperty(Service.API, StaticTokenProperty.name(token(org)), StaticTokenProperty.value(org));
        }
    }

    /**
     * Sets the two ledgers' fleets ({@code planned} machines plus this phase's) and the two orgs' quotas, creates the
     * big pool and then the small ones, and waits until all are TargetMet or the big pool's time is up.
     */
    void run(Stack stack, PoolTracker tracker, BrokerWrites broker, Map<String, Integer> planned) throws Exception {
        if (nodes == 0) {
            return;
        }
        this.stack = stack;
        this.tracker = tracker;
        URI api = stack.url(Service.API);
        setFleetsAndQuotas(planned);
        PhaseCost.Meter meter = PhaseCost.start("7", broker);
        big = tracker.expect(BIG_ORG + "/" + NAME, nodes);
        big.sent = System.nanoTime();
        Answer created =
                client.post(api, BenchClient.POOLS, token(BIG_ORG), Requests.manifest(NAME, ledger, nodes), null);
        if (created.code() != 201) {
            unmet = "its POST answered " + created.code();
            throw new IllegalStateException(
                    "POST of the " + nodes + "-node pool answered " + created.code() + ": " + created.body());
        }
        List<Trace> smallTraces = new ArrayList<>();
        for (int i = 1; i <= smallPools; i++) {
            String name = String.format(Locale.ROOT, "small-%03d", i);
            Trace trace = tracker.expect(SMALL_ORG + "/" + name, 1);
            trace.sent = System.nanoTime();
            Answer answer = client.post(
                    api, BenchClient.POOLS, token(SMALL_ORG), Requests.manifest(name, smallLedger, 1), null);
            if (answer.code() == 201) {
                smallTraces.add(trace);
            } else {
                small.error();
                notes.add("POST " + SMALL_ORG + "/" + name + " answered " + answer.code() + ": " + answer.body());
            }
        }
        awaitAll(smallTraces);
        smallTraces.stream().filter(t -> t.targetMet != 0).forEach(t -> small.add(t.targetMet - t.sent));
        if (big.targetMet != 0) {
            cost = meter.stop(nodes + smallPools);
        } else {
            unmet = whatItGot(api);
        }
    }

    private void setFleetsAndQuotas(Map<String, Integer> planned) {
        URI capacity = stack.url(Service.CAPACITY);
        URI quota = stack.url(Service.QUOTA);
        long start = System.nanoTime();
        extraMachines().forEach((where, extra) -> {
            int machines = planned.getOrDefault(where, 0) + extra;
            Answer answer = client.put(
                    capacity,
                    "/admin/fleet/" + where,
                    PipelineBenchmark.ADMIN_TOKEN,
                    "{\"machines\": " + machines + "}");
            if (answer.code() == 202) {
                notes.add("7: the fleet of " + where
                        + " answered 202 (not applied yet): the pools may have waited for it");
            } else if (answer.code() != 200) {
                throw new IllegalStateException("fleet " + where + " answered " + answer.code() + ": " + answer.body());
            }
        });
        Map<String, Integer> quotas = new LinkedHashMap<>();
        quotas.put(BIG_ORG + "/" + ledger, nodes);
        quotas.put(SMALL_ORG + "/" + smallLedger, smallPools);
        quotas.forEach((key, maxNodes) -> {
            Answer answer = client.put(
                    quota, "/admin/quotas/" + key, PipelineBenchmark.ADMIN_TOKEN, "{\"maxNodes\": " + maxNodes + "}");
            if (answer.code() != 200) {
                throw new IllegalStateException("quota " + key + " answered " + answer.code() + ": " + answer.body());
            }
        });
        awaitQuotas(quota, quotas);
        log(String.format(Locale.ROOT, "big pool: fleets and quotas set in %.1f s", (System.nanoTime() - start) / 1e9));
    }

    /** A quota is applied through a topic: waits until the quota-service lists both, so no pool meets an old limit. */
    private void awaitQuotas(URI quota, Map<String, Integer> quotas) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            Answer answer = client.get(quota, "/admin/quotas", PipelineBenchmark.ADMIN_TOKEN);
            int found = 0;
            try {
                for (JsonNode item : json.readTree(answer.body()).path("items")) {
                    Integer wanted = quotas.get(
                            item.path("org").asText() + "/" + item.path("zone").asText() + "/"
                                    + item.path("instanceType").asText());
                    found += wanted != null && item.path("maxNodes").asInt(-1) == wanted ? 1 : 0;
                }
            } catch (IOException e) {
                // not JSON yet: try again
            }
            if (found == quotas.size()) {
                return;
            }
            sleep(200);
        }
        throw new IllegalStateException("the quota-service did not list the quotas " + quotas + " within 60 s");
    }

    private void awaitAll(List<Trace> smallTraces) {
        long deadline = big.sent + timeout.toNanos();
        long lastLog = System.nanoTime();
        while ((big.targetMet == 0 || smallTraces.stream().anyMatch(t -> t.targetMet == 0))
                && System.nanoTime() < deadline) {
            tracker.check();
            if (System.nanoTime() - lastLog > 15e9) {
                lastLog = System.nanoTime();
                log(String.format(
                        Locale.ROOT,
                        "big pool: %.0f s, %,d of %,d nodes registered%s; small pools TargetMet: %d " + "of %d",
                        (lastLog - big.sent) / 1e9,
                        big.registeredCount,
                        nodes,
                        big.targetMet != 0 ? " (TargetMet)" : "",
                        smallTraces.stream().filter(t -> t.targetMet != 0).count(),
                        smallTraces.size()));
            }
            sleep(50);
        }
    }

    /** What the big pool got: its nodes, its status as the API shows it, and the services' readiness. */
    private String whatItGot(URI api) {
        StringBuilder text = new StringBuilder(
                String.format(Locale.ROOT, "%,d of %,d nodes registered", big.registeredCount, nodes));
        Answer answer = client.get(api, BenchClient.POOLS + "/" + NAME, token(BIG_ORG));
        try {
            JsonNode status = json.readTree(answer.body()).path("status");
            text.append("; status: currentNodes ")
                    .append(status.path("currentNodes").asText("?"));
            for (JsonNode c : status.path("conditions")) {
                if (List.of("AtTarget", "Validated", "Quota", "Capacity")
                        .contains(c.path("type").asText())) {
                    text.append(", ")
                            .append(c.path("type").asText())
                            .append('=')
                            .append(c.path("reason").asText());
                }
            }
        } catch (IOException e) {
            text.append("; GET answered ").append(answer.code());
        }
        List<String> notReady = new ArrayList<>();
        for (Service service : Service.values()) {
            Answer ready = client.get(stack.url(service), "/q/health/ready", PipelineBenchmark.ADMIN_TOKEN);
            if (ready.code() != 200) {
                notReady.add(service.module() + " " + ready.code());
            }
        }
        return text.append("; readiness: ")
                .append(notReady.isEmpty() ? "all UP" : "not ready: " + String.join(", ", notReady))
                .toString();
    }

    /**
     * Deletes the big pool and waits for its status tombstone. One that never reached TargetMet is not waited for:
     * nothing runs after this phase, and its broker goes with the run.
     */
    void delete() {
        if (big == null) {
            return;
        }
        Answer answer = client.delete(stack.url(Service.API), BenchClient.POOLS + "/" + NAME, token(BIG_ORG));
        long sent = System.nanoTime() - answer.nanos();
        if (answer.code() != 200) {
            deleteNote = "DELETE answered " + answer.code();
            deleted.error();
        } else if (big.targetMet == 0) {
            deleteNote = "sent, not waited for (the pool never reached TargetMet)";
        } else {
            long gone = tracker.await(big, t -> t.tombstone, timeout);
            if (gone == 0) {
                deleted.error();
                deleteNote = "**no status tombstone within " + timeout.toSeconds() + " s**";
            } else {
                deleted.add(gone - sent);
                deleteNote = "nodes removed, grants released, then the tombstone";
            }
        }
    }

    /** Seconds from the big pool's POST to TargetMet; NaN when it did not get there (or did not run). */
    double seconds() {
        return big == null || big.targetMet == 0 ? Double.NaN : (big.targetMet - big.sent) / 1e9;
    }

    /** What the big pool got, when it did not reach TargetMet. */
    String nodesGot() {
        return unmet == null ? "" : unmet;
    }

    /** The small pools' POST → TargetMet, in a phrase. */
    String smallSummary() {
        return String.format(
                Locale.ROOT,
                "p50 %s ms, max %s ms (%d of %d TargetMet)",
                Samples.ms(small.percentileMillis(50)),
                Samples.ms(small.maxMillis()),
                small.count(),
                smallPools);
    }

    /** The measured stretch, when the big pool reached TargetMet: items are the nodes of all the phase's pools. */
    PhaseCost cost() {
        return cost;
    }

    /** The results table's rows. */
    List<Row> rows() {
        if (big == null) {
            return List.of();
        }
        Samples one = new Samples();
        if (big.targetMet != 0) {
            one.add(big.targetMet - big.sent);
        } else {
            one.error();
        }
        String bigNote = big.targetMet != 0
                ? "one POST, in " + ledger + " (org " + BIG_ORG + ")"
                : "**did not reach TargetMet in " + timeout.toSeconds() + " s: " + unmet + "**";
        return List.of(
                new Row(
                        "7a",
                        "POST → status TargetMet, a " + String.format(Locale.ROOT, "%,d", nodes) + "-node pool",
                        1,
                        one,
                        "–",
                        bigNote),
                new Row(
                        "7b",
                        "POST → status TargetMet, " + smallPools + " one-node pools of another org created right "
                                + "after it, one after another",
                        small.count(),
                        small,
                        "–",
                        small.count() + " of " + smallPools + " TargetMet; in " + smallLedger + " (org " + SMALL_ORG
                                + ")"),
                new Row(
                        "7c",
                        "DELETE → `nodepool-status` tombstone, the big pool",
                        deleted.count(),
                        deleted,
                        "–",
                        deleteNote == null ? "not deleted" : deleteNote));
    }

    /** The report's section: when the big pool reached each stage, from its POST. */
    String section() {
        StringBuilder md = new StringBuilder();
        md.append("| stage of the ")
                .append(String.format(Locale.ROOT, "%,d", nodes))
                .append("-node pool (read_committed) | seconds after its POST |\n| --- | ---: |\n");
        Map<String, ToLongFunction<Trace>> stages = new LinkedHashMap<>();
        stages.put("pool processor decided (`nodepool-request-decided`) = the 201", t -> t.decided);
        stages.put("quota decided (`capacity-demanded`)", t -> t.quota);
        stages.put("capacity granted, all nodes (`capacity-checked`)", t -> t.granted);
        stages.put("first node assigned (`nodepool-nodes-changed`)", t -> t.assigned);
        stages.put("all nodes registered (`nodepool-nodes-changed`)", t -> t.registered);
        stages.put("status AtTarget/TargetMet with all nodes (`nodepool-status`)", t -> t.targetMet);
        stages.forEach((stage, at) -> {
            long stamp = at.applyAsLong(big);
            md.append("| ")
                    .append(stage)
                    .append(" | ")
                    .append(stamp == 0 ? "not reached" : Samples.seconds((stamp - big.sent) / 1e9))
                    .append(" |\n");
        });
        md.append("| nodes registered | ")
                .append(String.format(Locale.ROOT, "%,d of %,d", big.registeredCount, nodes))
                .append(" |\n\n");
        md.append("The ")
                .append(smallPools)
                .append(" one-node pools of org `")
                .append(SMALL_ORG)
                .append("`, created one after another right after the big pool's 201, POST → TargetMet: ")
                .append(smallSummary())
                .append(".\n");
        return md.toString();
    }

    static String token(String org) {
        return org + "-token";
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
