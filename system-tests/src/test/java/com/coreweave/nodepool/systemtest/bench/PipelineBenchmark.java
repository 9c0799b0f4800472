package com.coreweave.nodepool.systemtest.bench;

import static com.coreweave.nodepool.systemtest.bench.Phases.log;

import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.bench.BenchClient.Answer;
import com.coreweave.nodepool.systemtest.bench.PoolTracker.Trace;
import com.coreweave.nodepool.systemtest.bench.ReportTables.Row;
import com.coreweave.nodepool.systemtest.harness.Crc32Partitioner;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * The pipeline benchmark: starts the whole stack with the system-test harness (its own KRaft broker and the five
 * services' packaged jars on free ports), loads quotas and a fleet through the admin APIs, warms up, and measures REST
 * write and read latency, end-to-end convergence (with where the time goes, stage by stage), pipeline throughput
 * straight from {@code nodepool-requested}, idempotent replays, deletes, and one capacity ledger loaded on its own;
 * then runs the baseline chain ({@link Baseline}) on the same broker; last a big pool beside small ones
 * ({@link BigPool}) and the largest record every topic got ({@link RecordSizes}). Prints a Markdown report (issue 12's
 * and 25's targets, beside the baseline, first, then every figure, the machine, its load, CPU per process and what was
 * written to the broker per pool) and writes it to {@code target/benchmark-<time>.md}.
 *
 * <p>Run it with {@code ./stack bench [-Dbench.<size>=<n> ...]} (see docs/benchmarks.md for every size and what each
 * figure means). Not a test: no JUnit, never part of {@code ./stack test}.
 */
public final class PipelineBenchmark {

    static final String DEMO_TOKEN = "demo-token";
    static final String DEMO_ORG = "demo";
    static final String ADMIN_TOKEN = "admin-token";
    static final String DEFAULT_ZONE = "US-EAST-04A";
    static final String REQUESTED = "nodepool-requested";
    /** The stack's partition count (nodepool.kafka.partitions as shipped). */
    static final int PARTITIONS = 3;
    /** The pipeline benchmark's id: its figures are issue 12's throughput, CPU and writes per pool. */
    static final String PIPELINE = "4";

    // ------------------------------------------------------------------------------------------------ configuration

    private final int warmupRest = Settings.integer("warmup-rest", 40);
    private final int warmupTopic = Settings.integer("warmup-topic", 100);
    private final int seqCreates = Settings.integer("seq-creates", 200);
    private final int concurrentCreates = Settings.integer("concurrent-creates", 200);
    private final List<Integer> writeClients = Settings.integers("write-clients", "4,16");
    private final int reads = Settings.integer("reads", 1000);
    private final List<Integer> readClients = Settings.integers("read-clients", "1,4,16");
    private final int lists = Settings.integer("lists", 20);
    private final int converge1 = Settings.integer("converge-small", 20);
    private final int converge8 = Settings.integer("converge-large", 10);
    /** Autoscaling pools at 0 brought to one node by a published WorkloadPending (3d). */
    private final int convergeDemand = Settings.integer("converge-demand", 10);

    private final int largeNodes = Settings.integer("converge-large-nodes", 8);
    private final int replays = Settings.integer("replays", 30);
    private final int deletes = Settings.integer("deletes", 20);
    private final int pipelinePools = Settings.integer("pipeline-pools", 2000);
    private final int pipelineOrgs = Settings.integer("pipeline-orgs", 8);
    private final int pipelineNodes = Settings.integer("pipeline-nodes", 1);
    /** 4k: pools published on the partitions kcat's default partitioner picks (CRC32), not Java's (murmur2). */
    private final int kcatPools = Settings.integer("kcat-pools", 1000);
    /** S: pools offered at rising steady rates (per second), each for the step's seconds; no rates, no phase. */
    private final SustainedLoad sustained = new SustainedLoad(
            Settings.integers("sustained-rates", "100,200,400,800,1600"),
            Duration.ofSeconds(Settings.integer("sustained-seconds", 20)));

    /** JFR on the broker and every service during benchmark 4 ({@code -Dbench.profile=true}). */
    private final boolean profile = Boolean.parseBoolean(Settings.text("profile", "false"));

    private Profiles profiles;
    private List<SustainedLoad.Step> sustainedSteps = List.of();
    private List<SustainedLoad.Step> chainSteps = List.of();
    /** Ledgers (zone/instance type) of the catalogue, split between the benchmarks so they do not share one. */
    private final List<String> restLedgers = Settings.list(
            "rest-ledgers",
            "US-EAST-04A/gd-8xa100-i128,"
                    + "US-EAST-04A/gd-8xh100ib-i128,US-EAST-04A/gd-8xl40s-i128,US-EAST-04A/gd-8xl40-i128,"
                    + "US-EAST-04A/cd-gp-a192-genoa,US-EAST-04A/cd-gp-i64-erapids");

    private final String convergeLedger = Settings.text("converge-ledger", "US-WEST-04A/gd-8xa100-i128");
    private final List<String> pipelineLedgers = Settings.list(
            "pipeline-ledgers",
            "US-CENTRAL-07A/gd-8xa100-i128,"
                    + "US-EAST-06A/gd-8xh100ib-i128,US-WEST-04A/gd-8xh100ib-i128,US-EAST-06A/gd-8xh200ib-i128,"
                    + "US-EAST-08A/gd-8xh200ib-i128,EU-SOUTH-04A/gd-8xh200ib-i128,US-EAST-08A/gd-8xb200ib-i128,"
                    + "US-CENTRAL-07A/gd-8xb200ib-i128,US-CENTRAL-07A/gd-8xl40s-i128,EU-SOUTH-04A/gd-8xl40s-i128,"
                    + "US-WEST-04A/gd-8xl40-i128,US-EAST-06A/gd-1xgh200,US-WEST-04A/gd-1xgh200,US-EAST-08A/gb200-4x,"
                    + "US-CENTRAL-07A/gb200-4x,US-EAST-06A/cd-gp-a192-genoa,US-WEST-04A/cd-gp-a192-genoa,"
                    + "EU-SOUTH-04A/cd-gp-a192-genoa,US-EAST-08A/cd-gp-i64-erapids,US-CENTRAL-07A/cd-gp-i64-erapids,"
                    + "US-EAST-06A/cd-hp-a96-genoa,US-EAST-08A/cd-hp-a96-genoa,EU-SOUTH-04A/cd-hp-a96-genoa");
    /** One ledger loaded on its own, with a production-size fleet: how a ledger's cost grows with what it holds. */
    private final String hotLedger = Settings.text("hot-ledger", "US-EAST-08A/gb300-4x");

    private final int hotPools = Settings.integer("hot-pools", 200);
    private final int hotMachines = Settings.integer("hot-machines", 1000);
    private final int maxMachines = Settings.integer("max-machines", 50_000);
    private final int headroom = Settings.integer("fleet-headroom", 10);
    private final String bootTime = Settings.text("boot-time", "0s");
    private final String timerInterval = Settings.text("timer-interval", "100ms");
    private final Duration timeout = Duration.ofSeconds(Settings.integer("timeout-seconds", 300));
    /** The baseline chain: records at once (as many as the pipeline's pools), and records one at a time. */
    private final int baselineRecords = Settings.integer("baseline-records", pipelinePools);

    private final int baselineOneAtATime = Settings.integer("baseline-one-at-a-time", converge1);
    private final String serviceHeap = Settings.text("service-heap", Stack.DEFAULT_SERVICE_HEAP);
    /**
     * {@code secure} (SASL_SSL, SCRAM-SHA-512, ACLs: the default) or {@code plaintext}, to measure what security costs.
     */
    private final String kafkaSecurity = Settings.text("kafka", "secure");
    /** {@code ./stack bench --cluster}: three brokers and two instances of every service, as production runs it. */
    private final boolean cluster = Boolean.parseBoolean(Settings.text("cluster", "false"));

    private final Path outDir = Path.of(Settings.text("output-dir", "target")).toAbsolutePath();

    // ---------------------------------------------------------------------------------------------------- state

    private final MachineInfo.Start start = MachineInfo.Start.now();
    private final String runId = start.runId();
    private final BenchClient client = new BenchClient();
    private final ObjectMapper json = new ObjectMapper();
    private final List<Row> rows = new ArrayList<>();
    private final List<String[]> hops = new ArrayList<>();
    private final Map<String, List<String[]>> stageTables = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Phases phases = new Phases(notes);
    private final BigPool bigPool = new BigPool(notes);
    private RecordSizes records;
    private final Map<String, String> serviceProperties = new LinkedHashMap<>();
    private Stack stack;
    private Admin admin;
    private BrokerWrites broker;
    private PoolTracker tracker;
    /** The figures issue 12 sets targets for, kept as measured. */
    private Samples postAnswered;

    private Samples postToTargetMet;
    private double pipelineRate = Double.NaN;
    private final Map<String, PhaseCost> costs = new LinkedHashMap<>();
    private CreatePath.Checked createPath = CreatePath.unchecked();
    private Baseline chain;
    private Baseline.Result baseline;
    private URI api;
    private double stackStartSeconds;
    private final AtomicInteger restPoolCounter = new AtomicInteger();

    public static void main(String[] args) {
        Phases.runAndExit(() -> new PipelineBenchmark().run());
    }

    void run() throws Exception {
        checkPlan();
        log("run " + runId + "; load average " + MachineInfo.load(start.load()) + " on "
                + Runtime.getRuntime().availableProcessors() + " cores");
        try {
            startStack();
            admin = Admin.create(ClientSecurity.client(stack.bootstrapServers()));
            broker = new BrokerWrites(admin);
            records = new RecordSizes(stack.bootstrapServers(), broker);
            loadFleetAndQuotas();
            tracker = new PoolTracker(stack.bootstrapServers(), PoolTracker.STAGES);
            phases.run("warm-up", this::warmUp);
            phases.run("1 REST writes, sequential", this::sequentialWrites);
            for (int clients : writeClients) {
                phases.run("1 REST writes, " + clients + " clients", () -> concurrentWrites(clients));
            }
            phases.run("2 REST reads", this::readsPhase);
            phases.run("3 convergence", this::convergence);
            phases.run("5 replays and deletes", this::replaysAndDeletes);
            phases.run("4 pipeline throughput", () -> throughput(PIPELINE, "p", pipelinePools, pipelineLedgers, false));
            phases.run("B baseline chain", this::baselinePhase);
            stopBaseline();
            phases.run(
                    "4k pipeline throughput, kcat's partitions",
                    () -> throughput("4k", "k", kcatPools, pipelineLedgers, true));
            phases.run("S sustained load", this::sustainedLoad);
            phases.run("6 one ledger, " + fleet.getOrDefault(hotLedger, 0) + " machines", this::hotLedger);
            phases.run(
                    "7 a " + bigPool.nodes() + "-node pool beside small ones",
                    () -> bigPool.run(stack, tracker, broker, fleet));
            if (bigPool.ran()) {
                // Before the delete: the cleaner may drop a deleted pool's values from a compacted topic.
                phases.always("largest records, before the big pool's delete", () -> records.readToEnd(timeout));
                phases.run("7 the big pool deleted", bigPool::delete);
            }
            phases.always("largest records", () -> {
                records.readToEnd(timeout);
                records.readRefusals(stack.logs());
            });
        } finally {
            stopBaseline();
            Phases.stop(stack, admin, tracker);
            Phases.publish(report(), outDir, "benchmark-" + runId);
        }
        phases.requireNoFailure();
    }

    // ---------------------------------------------------------------------------------------------------- setup

    /** Machines each ledger needs, so that no benchmark waits for capacity, and the orgs that draw on it. */
    private final Map<String, Integer> fleet = new LinkedHashMap<>();

    private final Map<String, Set<String>> quotaOrgs = new LinkedHashMap<>();

    private void plan(String org, String ledger, int nodes) {
        fleet.merge(ledger, nodes, Integer::sum);
        quotaOrgs.computeIfAbsent(ledger, l -> new TreeSet<>()).add(org);
    }

    /** Sizes the fleet of every ledger to what the benchmarks put there; refuses a plan that cannot fit. */
    private void checkPlan() {
        int rest = warmupRest + seqCreates + concurrentCreates * writeClients.size() + replays;
        for (int i = 1; i <= rest; i++) {
            plan(DEMO_ORG, restLedger(i), 1);
        }
        if (converge1 + converge8 + convergeDemand > 0) {
            plan(DEMO_ORG, convergeLedger, converge1 + converge8 * largeNodes + convergeDemand);
        }
        for (int i = 0; i < warmupTopic; i++) {
            plan(org(i), pipelineLedgers.get(i % pipelineLedgers.size()), pipelineNodes);
        }
        for (int i = 0; i < pipelinePools; i++) {
            plan(org(i), pipelineLedgers.get(i % pipelineLedgers.size()), pipelineNodes);
        }
        for (int i = 0; i < kcatPools; i++) {
            plan(org(i), pipelineLedgers.get(i % pipelineLedgers.size()), pipelineNodes);
        }
        for (int i = 0; i < sustained.items(); i++) {
            plan(org(i), pipelineLedgers.get(i % pipelineLedgers.size()), pipelineNodes);
        }
        for (int i = 0; i < hotPools; i++) {
            plan(org(i), hotLedger, pipelineNodes);
        }
        fleet.replaceAll((ledger, machines) -> machines + headroom);
        if (hotPools > 0) {
            fleet.merge(hotLedger, hotMachines, Math::max);
        }
        bigPool.extraMachines().forEach((ledger, extra) -> {
            if (fleet.getOrDefault(ledger, 0) + extra > maxMachines) {
                throw new IllegalArgumentException("benchmark 7 needs " + (fleet.getOrDefault(ledger, 0) + extra)
                        + " machines in ledger " + ledger + ", more than a ledger holds (" + maxMachines + "); lower "
                        + "-Dbench.big-pool-nodes or choose -Dbench.big-pool-ledger");
            }
        });
        fleet.forEach((ledger, machines) -> {
            if (machines > maxMachines) {
                throw new IllegalArgumentException("the plan needs " + machines + " machines in ledger " + ledger
                        + ", more than a ledger holds (" + maxMachines
                        + "); lower the sizes or spread the pools over more "
                        + "ledgers (-Dbench.rest-ledgers, -Dbench.pipeline-ledgers; every <zone>/<type> of "
                        + "capacity-service/src/main/resources/instance-types.yaml is one ledger)");
            }
        });
        System.getProperties().stringPropertyNames().stream()
                .sorted()
                .filter(p -> p.startsWith("bench.service."))
                .forEach(p -> serviceProperties.put(p.substring("bench.service.".length()), System.getProperty(p)));
    }

    private void startStack() {
        Stack.Builder builder = Stack.builder()
                .withServices(Service.values())
                .withServiceHeap(serviceHeap)
                .withProperty(Service.PROVISIONER, "provisioner.boot-time", bootTime)
                .withProperty(Service.PROVISIONER, "provisioner.boot-failure-rate", "0")
                .withProperty(Service.PROVISIONER, "provisioner.timer-interval", timerInterval)
                // Setting a large fleet right after start, on a busy machine, may take longer than the default 10 s.
                .withProperty(Service.CAPACITY, "nodepool.capacity.fleet-change-timeout", "60s");
        bigPool.addTokens(builder);
        // The pipeline's orgs hold every pool of benchmarks 4 and S at once (S alone sends up to 62,000): an operator's
        // own quotas for them, since the default 1,000 pools (16 MiB) an org refused the rest of S with 403.
        for (int n = 0; n < pipelineOrgs; n++) {
            builder.withProperty(Service.API, "nodepool.api.pool-count-quota-per-org." + org(n), "20000")
                    .withProperty(Service.API, "nodepool.api.pool-storage-quota-per-org." + org(n), "134217728");
        }
        if (cluster) {
            builder.withCluster();
            notes.add("cluster (--cluster): 3 brokers (replication factor 3, min.insync.replicas 2) and 2 instances of"
                    + " every service (a standby replica per task); REST clients call the first api-service instance;"
                    + " CPU figures add up every process of a component");
        }
        switch (kafkaSecurity) {
            case "secure" -> notes.add("broker: SASL_SSL (SCRAM-SHA-512) with ACLs; each service its own principal");
            case "plaintext" -> {
                builder.withPlaintextKafka();
                notes.add("broker: PLAINTEXT, no authentication or ACLs (-Dbench.kafka=plaintext)");
            }
            default ->
                throw new IllegalArgumentException("-Dbench.kafka is secure or plaintext, not '" + kafkaSecurity + "'");
        }
        // -Dbench.service.<module|all>.<key>=<value>: extra settings for experiments, e.g. a shorter commit interval.
        serviceProperties.forEach((spec, value) -> {
            int dot = spec.indexOf('.');
            String target = spec.substring(0, dot);
            String key = spec.substring(dot + 1);
            for (Service service : Service.values()) {
                if (target.equals("all") || target.equals(service.module())) {
                    builder.withProperty(service, key, value);
                }
            }
        });
        log("starting the stack (" + (cluster ? "3 brokers + 2 instances of 5 services" : "broker + 5 services")
                + ", heap " + serviceHeap + " each; boot-time " + bootTime
                + ", timer-interval " + timerInterval + (serviceProperties.isEmpty() ? "" : ", " + serviceProperties)
                + ")");
        long start = System.nanoTime();
        stack = builder.build().start();
        stackStartSeconds = (System.nanoTime() - start) / 1e9;
        api = stack.url(Service.API);
        log("stack ready in " + MachineInfo.fmt(stackStartSeconds) + " s; broker " + stack.bootstrapServers() + ", api "
                + api + ", logs " + stack.logs());
    }

    private void loadFleetAndQuotas() {
        URI quota = stack.url(Service.QUOTA);
        URI capacity = stack.url(Service.CAPACITY);
        long start = System.nanoTime();
        fleet.forEach((ledger, machines) -> {
            Answer answer =
                    client.put(capacity, "/admin/fleet/" + ledger, ADMIN_TOKEN, "{\"machines\": " + machines + "}");
            require(answer.code() == 200 || answer.code() == 202, "fleet " + ledger, answer);
        });
        int quotas = 0;
        for (var entry : quotaOrgs.entrySet()) {
            for (String org : entry.getValue()) {
                setQuota(quota, org, entry.getKey(), fleet.get(entry.getKey()));
                quotas++;
            }
        }
        log(String.format(
                Locale.ROOT,
                "fleet of %d ledgers (%d machines) and %d quotas set in %.1f s",
                fleet.size(),
                fleet.values().stream().mapToInt(Integer::intValue).sum(),
                quotas,
                (System.nanoTime() - start) / 1e9));
    }

    private void setQuota(URI quota, String org, String ledger, int maxNodes) {
        Answer answer = client.put(
                quota, "/admin/quotas/" + org + "/" + ledger, ADMIN_TOKEN, "{\"maxNodes\": " + maxNodes + "}");
        require(answer.code() == 200, "quota " + org + "/" + ledger, answer);
    }

    // ---------------------------------------------------------------------------------------------------- phases

    /** Every path once at low rate: REST creates that converge, reads, and topic requests through all services. */
    private void warmUp() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < warmupRest; i++) {
            String name = nextRestPool();
            keys.add(DEMO_ORG + "/" + name);
            tracker.expect(DEMO_ORG + "/" + name, 1);
            Answer created = client.post(api, BenchClient.POOLS, DEMO_TOKEN, restPool(name), null);
            require(created.code() == 201, "warm-up create", created);
            client.get(api, BenchClient.POOLS + "/" + name, DEMO_TOKEN);
        }
        keys.addAll(publish("warm", warmupTopic, pipelineLedgers, false));
        settle(keys, "warm-up");
    }

    private void sequentialWrites() {
        if (seqCreates == 0) {
            return;
        }
        Samples samples = new Samples();
        List<String> keys = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < seqCreates; i++) {
            String key = create(samples);
            if (key != null) {
                keys.add(key);
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        double settled = settle(keys, "sequential writes");
        postAnswered = samples;
        rows.add(new Row(
                "1a",
                "POST create (201 once the pool processor decided), 1 client",
                samples.count(),
                samples,
                Samples.rate(samples.count() / wall, "req/s"),
                errors(samples) + "; all " + keys.size() + " TargetMet " + Samples.seconds(settled)
                        + " after the last 201"));
    }

    private void concurrentWrites(int clients) throws InterruptedException {
        if (concurrentCreates == 0) {
            return;
        }
        Samples samples = new Samples();
        List<String> keys = Collections.synchronizedList(new ArrayList<>());
        double wall = concurrently(clients, concurrentCreates, i -> {
            String key = create(samples);
            if (key != null) {
                keys.add(key);
            }
        });
        double settled = settle(new ArrayList<>(keys), clients + " write clients");
        rows.add(new Row(
                "1" + (char) ('b' + writeClients.indexOf(clients)),
                "POST create, " + clients + " concurrent clients",
                samples.count(),
                samples,
                Samples.rate(samples.count() / wall, "req/s"),
                errors(samples) + "; all TargetMet " + Samples.seconds(settled) + " after the last 201"));
    }

    /** Creates one REST pool; its key, or null when the call failed (noted in the report). */
    private String create(Samples samples) {
        String name = nextRestPool();
        String key = DEMO_ORG + "/" + name;
        tracker.expect(key, 1);
        Answer answer = client.post(api, BenchClient.POOLS, DEMO_TOKEN, restPool(name), null);
        if (answer.code() == 201) {
            samples.add(answer.nanos());
            return key;
        }
        samples.error();
        noteError("POST " + name, answer);
        return null;
    }

    private void readsPhase() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= Math.min(restPoolCounter.get(), 500); i++) {
            names.add(restPoolName(i));
        }
        if (names.isEmpty()) {
            return;
        }
        char id = 'a';
        for (int clients : reads == 0 ? List.<Integer>of() : readClients) {
            Samples samples = new Samples();
            double wall = concurrently(clients, reads, i -> {
                Answer answer = client.get(api, BenchClient.POOLS + "/" + names.get(i % names.size()), DEMO_TOKEN);
                if (answer.code() == 200) {
                    samples.add(answer.nanos());
                } else {
                    samples.error();
                    noteError("GET", answer);
                }
            });
            rows.add(new Row(
                    "2" + id++,
                    "GET one pool, " + clients + (clients == 1 ? " client" : " concurrent clients"),
                    samples.count(),
                    samples,
                    Samples.rate(samples.count() / wall, "req/s"),
                    errors(samples)));
        }
        if (lists == 0) {
            return;
        }
        Samples listed = new Samples();
        int items = 0;
        int bytes = 0;
        long listStart = System.nanoTime();
        for (int i = 0; i < lists; i++) {
            Answer answer = client.get(api, BenchClient.POOLS, DEMO_TOKEN);
            if (answer.code() == 200) {
                listed.add(answer.nanos());
                items = json.readTree(answer.body()).path("items").size();
                bytes = answer.body().length();
            } else {
                listed.error();
                noteError("LIST", answer);
            }
        }
        rows.add(new Row(
                "2" + id,
                "GET list of the org's pools, 1 client",
                listed.count(),
                listed,
                Samples.rate(listed.count() / ((System.nanoTime() - listStart) / 1e9), "req/s"),
                items + " pools, " + bytes / 1024 + " KiB per answer"));
    }

    /** POST → first nodepool-status showing AtTarget/TargetMet with all nodes, one pool at a time. */
    private void convergence() throws Exception {
        convergeRun("3a", 1, converge1, "1-node pools");
        convergeRun("3b", largeNodes, converge8, largeNodes + "-node pools");
        demandRun("3d", convergeDemand);
    }

    /**
     * Demand → TargetMet: an autoscaling pool at 0 nodes, then a {@code WorkloadPending} of one pod for it published
     * straight to {@code workload-pending}; timed from the publish to the pool's status TargetMet with the node (the
     * demand planner, the autoscaler's APPLY, then the path of 3a). Each workload selects its own pool by the node-pool
     * label, so an earlier pool's idle node does not serve it; each is gone once measured.
     */
    private void demandRun(String id, int count) throws Exception {
        if (count == 0) {
            return;
        }
        Samples total = new Samples();
        String[] ledger = convergeLedger.split("/");
        try (KafkaProducer<String, String> producer = Requests.producer(stack.bootstrapServers())) {
            for (int i = 1; i <= count; i++) {
                String name = String.format(Locale.ROOT, "bd-%04d", i);
                String key = DEMO_ORG + "/" + name;
                Trace empty = tracker.expect(key, 0);
                Answer answer = client.post(
                        api, BenchClient.POOLS, DEMO_TOKEN, """
                        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},\
                        "spec":{"region":"%s","instanceType":"%s","autoscaling":true,"minNodes":0,"targetNodes":0}}""".formatted(name, ledger[0], ledger[1]), null);
                if (answer.code() != 201 || tracker.await(empty, t -> t.targetMet, Duration.ofSeconds(60)) == 0) {
                    total.error();
                    noteError("POST " + name, answer);
                    continue;
                }
                Trace trace = tracker.expect(key, 1);
                String workload = "bw-" + runId + "-" + i;
                long sent = System.nanoTime();
                producer.send(new ProducerRecord<>(
                                Topics.WORKLOAD_PENDING.name(),
                                DEMO_ORG + "/" + workload,
                                workloadEvent(workload, "WorkloadPending", """
                                        {"org":"demo","name":"%s","pods":1,"needs":{"instanceType":"%s","zone":"%s",\
                                        "nodeSelector":{"compute.coreweave.com/node-pool":"%s"}}}""".formatted(
                                                workload, ledger[1], ledger[0], name))))
                        .get();
                long met = tracker.await(trace, t -> t.targetMet, Duration.ofSeconds(60));
                if (met == 0) {
                    total.error();
                    notes.add("pool " + name + " did not reach TargetMet within 60 s of its workload");
                } else {
                    total.add(met - sent);
                }
                producer.send(new ProducerRecord<>(
                                Topics.WORKLOAD_PENDING.name(),
                                DEMO_ORG + "/" + workload,
                                workloadEvent(
                                        workload, "WorkloadGone", "{\"org\":\"demo\",\"name\":\"" + workload + "\"}")))
                        .get();
            }
        }
        rows.add(new Row(
                id,
                "WorkloadPending published → status TargetMet, autoscaling pools at 0 → 1 node (one at a time)",
                total.count(),
                total,
                "–",
                errors(total) + "; compare 3a (POST → TargetMet)"));
    }

    private String workloadEvent(String workload, String type, String data) {
        return """
                {"specversion":"1.0","id":"bench-%s-%s-%s","source":"benchmark","type":"%s",\
                "subject":"demo/%s","datacontenttype":"application/json","data":%s}""".formatted(runId, workload, type, type, workload, data);
    }

    private final List<String> smallConverged = new ArrayList<>();

    private void convergeRun(String id, int nodes, int count, String what) {
        if (count == 0) {
            return;
        }
        Samples total = new Samples();
        Map<String, Samples> stages = new LinkedHashMap<>();
        List<Map.Entry<String, ToLongFunction<Trace>>> stageList = List.of(
                Map.entry("pool processor decided (`nodepool-request-decided`) = the 201", t -> t.decided),
                Map.entry("quota decided (`capacity-demanded`)", t -> t.quota),
                Map.entry("capacity granted (`capacity-checked`, all grants)", t -> t.granted),
                Map.entry("first node assigned (`nodepool-nodes-changed` NodeAssigned)", t -> t.assigned),
                Map.entry("all nodes registered (`nodepool-nodes-changed` NodeRegistered)", t -> t.registered),
                Map.entry("status AtTarget/TargetMet (`nodepool-status`)", t -> t.targetMet));
        stageList.forEach(s -> stages.put(s.getKey(), new Samples()));
        Samples http = new Samples();
        Map<String, Samples> post = new LinkedHashMap<>();
        List.of(
                        "client sends → request record produced (HTTP, validation, publish with acks=all)",
                        "→ pool processor decided (the decision's record time: Streams fetch, poll, process)",
                        "→ decision committed and visible to a read_committed reader (transaction commit)",
                        "→ 201 read by the client (DecisionWaiter fetch, HTTP answer)")
                .forEach(segment -> post.put(segment, new Samples()));
        for (int i = 1; i <= count; i++) {
            String name = String.format(Locale.ROOT, "bc%d-%04d", nodes, i);
            Trace trace = tracker.expect(DEMO_ORG + "/" + name, nodes);
            long sent = System.nanoTime();
            long sentMs = System.currentTimeMillis();
            trace.sent = sent;
            Answer answer = client.post(
                    api, BenchClient.POOLS, DEMO_TOKEN, Requests.manifest(name, convergeLedger, nodes), null);
            long answeredMs = System.currentTimeMillis();
            if (answer.code() != 201) {
                total.error();
                noteError("POST " + name, answer);
                continue;
            }
            http.add(answer.nanos());
            long met = tracker.await(trace, t -> t.targetMet, Duration.ofSeconds(60));
            if (met == 0) {
                total.error();
                notes.add("pool " + name + " did not reach TargetMet within 60 s");
                continue;
            }
            total.add(met - sent);
            if (trace.requestRecordMs > 0 && trace.decidedRecordMs > 0) {
                long[] points = {
                    sentMs, trace.requestRecordMs, trace.decidedRecordMs, trace.decidedVisibleMs, answeredMs
                };
                int segment = 0;
                for (Samples s : post.values()) {
                    s.add(Math.max(0, points[segment + 1] - points[segment]) * 1_000_000L);
                    segment++;
                }
            }
            if (nodes == 1) {
                smallConverged.add(name);
            }
            for (var stage : stageList) {
                long at = stage.getValue().applyAsLong(trace);
                if (at != 0) {
                    stages.get(stage.getKey()).add(at - sent);
                }
            }
        }
        if (nodes == 1) {
            postToTargetMet = total;
        }
        rows.add(new Row(
                id,
                "POST → status TargetMet, " + what + " (one at a time)",
                total.count(),
                total,
                "–",
                errors(total) + "; the POST itself p50 " + Samples.ms(http.percentileMillis(50)) + " ms"));
        hops.add(new String[] {"**" + what + "** (n = " + total.count() + ")", "", "", ""});
        stages.forEach((stage, s) -> hops.add(new String[] {
            stage,
            Samples.ms(s.percentileMillis(50)),
            Samples.ms(s.percentileMillis(90)),
            Samples.ms(s.percentileMillis(99))
        }));
        hops.add(new String[] {
            "*the POST of these pools, segment by segment (ms between the points; record times "
                    + "are the services' clocks, same machine)*",
            "",
            "",
            ""
        });
        post.forEach((segment, s) -> hops.add(new String[] {
            segment,
            Samples.ms(s.percentileMillis(50)),
            Samples.ms(s.percentileMillis(90)),
            Samples.ms(s.percentileMillis(99))
        }));
    }

    private void replaysAndDeletes() {
        Samples first = new Samples();
        Samples replay = new Samples();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < replays; i++) {
            String name = nextRestPool();
            String idempotencyKey = "bench-" + runId + "-" + name;
            tracker.expect(DEMO_ORG + "/" + name, 1);
            String body = restPool(name);
            Answer one = client.post(api, BenchClient.POOLS, DEMO_TOKEN, body, idempotencyKey);
            Answer two = client.post(api, BenchClient.POOLS, DEMO_TOKEN, body, idempotencyKey);
            if (one.code() != 201) {
                first.error();
                noteError("POST " + name, one);
                continue;
            }
            first.add(one.nanos());
            keys.add(DEMO_ORG + "/" + name);
            if (two.code() == one.code() && uid(two).equals(uid(one))) {
                replay.add(two.nanos());
            } else {
                replay.error();
                noteError("replay of " + name + " (first answer " + one.code() + " uid " + uid(one) + ")", two);
            }
        }
        if (replays > 0) {
            rows.add(new Row("5a", "POST with a new Idempotency-Key", first.count(), first, "–", errors(first)));
            rows.add(new Row(
                    "5b",
                    "the same POST replayed (same Idempotency-Key → first answer)",
                    replay.count(),
                    replay,
                    "–",
                    errors(replay) + "; a replay is decided by the pool processor too"));
            settle(keys, "idempotent creates");
        }
        if (deletes == 0 || smallConverged.isEmpty()) {
            return;
        }

        Samples call = new Samples();
        Samples gone = new Samples();
        for (String name : smallConverged.subList(0, Math.min(deletes, smallConverged.size()))) {
            Trace trace = tracker.trace(DEMO_ORG + "/" + name);
            Answer answer = client.delete(api, BenchClient.POOLS + "/" + name, DEMO_TOKEN);
            if (answer.code() != 200) {
                call.error();
                noteError("DELETE " + name, answer);
                continue;
            }
            long sent = System.nanoTime() - answer.nanos();
            call.add(answer.nanos());
            long tombstone = tracker.await(trace, t -> t.tombstone, Duration.ofSeconds(60));
            if (tombstone == 0) {
                gone.error();
                notes.add("pool " + name + " had no status tombstone 60 s after DELETE");
            } else {
                gone.add(tombstone - sent);
            }
        }
        rows.add(new Row("5c", "DELETE (200 once the pool processor decided)", call.count(), call, "–", errors(call)));
        rows.add(new Row(
                "5d",
                "DELETE → `nodepool-status` tombstone (1-node pools, one at a time)",
                gone.count(),
                gone,
                "–",
                errors(gone) + "; nodes removed, grant released, CWNodePoolDeleted"));
    }

    /**
     * K requests straight to {@code nodepool-requested}, as fast as one producer writes them, until all K are TargetMet
     * (or the timeout): when the K pools reached each stage, so the slowest stage shows.
     */
    private void throughput(String id, String prefix, int count, List<String> ledgers, boolean crc32) throws Exception {
        if (count == 0) {
            return;
        }
        if (profile && id.equals(PIPELINE)) {
            profiles = new Profiles(stack.logs().resolve("profiles"));
            profiles.start();
        }
        PhaseCost.Meter meter = PhaseCost.start(id, broker);
        long start = System.nanoTime();
        List<String> keys = publish(prefix, count, ledgers, crc32);
        long published = System.nanoTime();
        List<Map.Entry<String, ToLongFunction<Trace>>> stages = List.of(
                Map.entry("pool processor decided (`nodepool-request-decided`)", t -> t.decided),
                Map.entry("quota decided (`capacity-demanded`)", t -> t.quota),
                Map.entry("capacity granted (`capacity-checked`)", t -> t.granted),
                Map.entry("nodes assigned (`nodepool-nodes-changed`)", t -> t.assigned),
                Map.entry("nodes registered (`nodepool-nodes-changed`)", t -> t.registered),
                Map.entry("status TargetMet (`nodepool-status`)", t -> t.targetMet));
        long deadline = start + timeout.toNanos();
        long lastLog = 0;
        while (tracker.count(keys, t -> t.targetMet) < keys.size() && System.nanoTime() < deadline) {
            tracker.check();
            if (System.nanoTime() - lastLog > 10e9) {
                lastLog = System.nanoTime();
                StringBuilder progress = new StringBuilder();
                stages.forEach(s -> progress.append(' ').append(tracker.count(keys, s.getValue())));
                log(String.format(
                        Locale.ROOT,
                        "%.0f s: decided/quota/granted/assigned/registered/TargetMet =%s of %d",
                        (System.nanoTime() - start) / 1e9,
                        progress,
                        keys.size()));
            }
            Thread.sleep(50);
        }
        boolean complete = tracker.count(keys, t -> t.targetMet) == keys.size();
        PhaseCost cost = meter.stop(count);
        costs.put(id, cost);
        if (profile && id.equals(PIPELINE)) {
            profiles.stop();
            notes.add("profiled (-Dbench.profile=true): JFR ran in every process during benchmark 4, so its CPU and"
                    + " rates include the recording's own cost");
        }
        if (id.equals(PIPELINE) && complete) {
            createPath = CreatePath.check(cost.written(), count);
        }
        double publishSeconds = (published - start) / 1e9;
        String where = ledgers.size() == 1
                ? "1 ledger (" + ledgers.get(0) + ", " + fleet.get(ledgers.get(0)) + " machines)"
                : ledgers.size() + " ledgers";
        rows.add(new Row(
                id + "a",
                count + " NodePoolRequested CloudEvents published to `nodepool-requested`",
                count,
                null,
                Samples.rate(count / publishSeconds, "records/s"),
                "acks=all; "
                        + (crc32
                                ? moved + " of " + count
                                        + " on another partition than Java's partitioner picks (kcat's CRC32); "
                                : "")
                        + pipelineOrgs + " orgs, " + where
                        + ", " + pipelineNodes + " node(s) each; written in " + Samples.seconds(publishSeconds)));
        List<String[]> table = new ArrayList<>();
        stageTables.put(id + ": " + count + " pools over " + where, table);
        char row = 'b';
        for (var stage : stages) {
            List<Long> times = new ArrayList<>();
            for (String key : keys) {
                long at = stage.getValue().applyAsLong(tracker.trace(key));
                if (at != 0) {
                    times.add(at - start);
                }
            }
            times.sort(Long::compare);
            int n = times.size();
            int k = keys.size();
            double all = n == k ? times.get(n - 1) / 1e9 : Double.NaN;
            double p10 = n > k / 10 ? times.get(k / 10) / 1e9 : Double.NaN;
            double p50 = n >= k / 2 && n > 0 ? times.get(Math.max(0, k / 2 - 1)) / 1e9 : Double.NaN;
            double p90 = n >= k * 9 / 10 && n > 0 ? times.get(Math.max(0, k * 9 / 10 - 1)) / 1e9 : Double.NaN;
            table.add(new String[] {
                stage.getKey(),
                n + " / " + k,
                Samples.seconds(n > 0 ? times.get(0) / 1e9 : Double.NaN),
                Samples.seconds(p50),
                Samples.seconds(p90),
                Samples.seconds(all),
                Samples.rate(k / all, "pools/s"),
                k >= 50 && p90 - p10 >= 0.5 ? Samples.rate(k * 0.8 / (p90 - p10), "pools/s") : "–"
            });
            if (id.equals(PIPELINE) && stage == stages.get(stages.size() - 1)) {
                pipelineRate = k / all;
            }
            if (stage == stages.get(0) || stage == stages.get(stages.size() - 1)) {
                String what = stage == stages.get(0)
                        ? "pool processor alone: all " + k + " decided"
                        : "through all five services: all " + k + " TargetMet";
                rows.add(new Row(
                        id + row++,
                        what,
                        n,
                        null,
                        Samples.rate(k / all, "pools/s"),
                        n == k
                                ? "last after " + Samples.seconds(all) + " from the first publish"
                                : "**INCOMPLETE: " + n + " of " + k + " within " + timeout.toSeconds() + " s**"));
            }
        }
    }

    /**
     * B: the chain of k exactly-once pass-through hops (k as the pipeline benchmark checked it), with the records of
     * benchmark 4 all at once and then one at a time: what the services' figures are divided by in the targets table.
     */
    private void baselinePhase() throws Exception {
        if (baselineRecords == 0) {
            return;
        }
        List<String> keys = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < baselineRecords; i++) {
            keys.add(pipelineKey("p", i));
            values.add(pipelineRequest(keys.get(i), i, pipelineLedgers));
        }
        Map<String, String> settings = Baseline.servicesStreamsSettings(MachineInfo.PROJECT_ROOT, serviceProperties);
        chain = new Baseline(
                stack.bootstrapServers(), admin, broker, stack.logs().resolve("baseline.log"));
        baseline = chain.run(createPath.hops(), settings, baselineRecords, baselineOneAtATime, keys, values);
        if (sustained.items() > 0) {
            chainSteps = chain.sustained(sustained, keys, values);
        }
        int k = baseline.hops().size();
        rows.add(new Row(
                "Ba",
                baselineRecords + " records at once through the chain of " + k + " hops",
                baselineRecords,
                null,
                Samples.rate(baseline.rate(), "records/s"),
                "the last after " + Samples.seconds(baseline.seconds()) + " from the first publish; " + k + " hops in "
                        + baseline.apps() + " apps (one per service on the path)"));
        rows.add(new Row(
                "Bb",
                "one record through all " + k + " hops, one at a time",
                baseline.endToEnd().count(),
                baseline.endToEnd(),
                "–",
                errors(baseline.endToEnd()) + "; compare 3a"));
        rows.add(new Row(
                "Bc",
                "… its first hop",
                baseline.firstHop().count(),
                baseline.firstHop(),
                "–",
                "compare 1a (a POST waits for one hop)"));
    }

    /**
     * S: pools published to {@code nodepool-requested} at rising steady rates, through to TargetMet; beside the same
     * steps through the chain (phase B), the sustained capacity of each.
     */
    private void sustainedLoad() throws Exception {
        if (sustained.items() == 0) {
            return;
        }
        List<String> keys = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Requests.producer(stack.bootstrapServers())) {
            sustainedSteps = sustained.run(
                    "S",
                    i -> {
                        String key = pipelineKey("s", i);
                        tracker.expect(key, pipelineNodes);
                        keys.add(key);
                        producer.send(new ProducerRecord<>(REQUESTED, key, pipelineRequest(key, i, pipelineLedgers)));
                    },
                    i -> tracker.trace(keys.get(i)).targetMet,
                    timeout);
        }
        int theirs = SustainedLoad.boundedCapacity(chainSteps);
        rows.add(new Row(
                "S",
                "sustained capacity: highest step with a bounded backlog and POST → TargetMet p99 ≤ 1 s",
                keys.size(),
                null,
                Samples.rate(SustainedLoad.capacity(sustainedSteps), "pools/s"),
                "at any latency: " + Samples.rate(SustainedLoad.boundedCapacity(sustainedSteps), "pools/s")
                        + "; the chain's at any latency: "
                        + (chainSteps.isEmpty() ? "not run" : Samples.rate(theirs, "records/s"))
                        + "; steps in \"Sustained load\" below"));
        settle(keys, "S");
    }

    /** Stops the baseline chain; after its phase's CPU was measured, since a process that ended shows none. */
    private void stopBaseline() throws InterruptedException {
        if (chain != null) {
            chain.close();
            chain = null;
        }
    }

    /** One ledger with a production-size fleet: how throughput holds up when one ledger holds many machines. */
    private void hotLedger() throws Exception {
        throughput("6", "hot", hotPools, List.of(hotLedger), false);
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    /** How many records of the last {@code crc32} publish were not on the partition Java's partitioner picks. */
    private int moved;

    /**
     * Publishes {@code count} APPLY requests round-robin over the pipeline orgs and {@code ledgers}, on the partition
     * Java's partitioner picks or, with {@code crc32}, on the one librdkafka's default (kcat) picks; their keys.
     */
    private List<String> publish(String prefix, int count, List<String> ledgers, boolean crc32) throws Exception {
        moved = 0;
        List<String> keys = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Requests.producer(stack.bootstrapServers())) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String key = pipelineKey(prefix, i);
                tracker.expect(key, pipelineNodes);
                keys.add(key);
                String event = pipelineRequest(key, i, ledgers);
                Integer partition = null;
                if (crc32) {
                    partition = Crc32Partitioner.partition(key, PARTITIONS);
                    moved += partition
                                    == Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8)))
                                            % PARTITIONS
                            ? 0
                            : 1;
                }
                sent.add(producer.send(new ProducerRecord<>(REQUESTED, partition, key, event)));
            }
            producer.flush();
            for (var future : sent) {
                future.get();
            }
        }
        return keys;
    }

    /** The key of topic pool {@code i}: {@code <org>/<prefix>-<i>}, round-robin over the pipeline orgs. */
    private String pipelineKey(String prefix, int i) {
        return org(i) + "/" + String.format(Locale.ROOT, "%s-%05d", prefix, i);
    }

    /** The request for topic pool {@code i}, in the ledgers round-robin. */
    private String pipelineRequest(String key, int i, List<String> ledgers) {
        return Requests.apply(
                runId,
                key,
                Requests.manifest(key.substring(key.indexOf('/') + 1), ledgers.get(i % ledgers.size()), pipelineNodes));
    }

    private String restLedger(int i) {
        return restLedgers.get((i - 1) % restLedgers.size());
    }

    /** The manifest of REST pool {@code bw-<i>}: one node, in the REST ledgers round-robin. */
    private String restPool(String name) {
        return Requests.manifest(name, restLedger(Integer.parseInt(name.substring(3))), 1);
    }

    /**
     * Waits until every pool is TargetMet; returns the seconds waited. Fails after the timeout, saying where pools are.
     */
    private double settle(List<String> keys, String what) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long lastLog = start;
        while (tracker.count(keys, t -> t.targetMet) < keys.size()) {
            tracker.check();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": only " + tracker.count(keys, t -> t.targetMet) + " of "
                        + keys.size() + " pools reached TargetMet within " + timeout.toSeconds() + " s; "
                        + stageCounts(keys)
                        + "; e.g. " + describe(keys) + "; logs in " + stack.logs());
            }
            if (System.nanoTime() - lastLog > 15e9) {
                lastLog = System.nanoTime();
                log(String.format(
                        Locale.ROOT,
                        "%s: waiting %.0f s for TargetMet; %s",
                        what,
                        (lastLog - start) / 1e9,
                        stageCounts(keys)));
            }
            sleep(20);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private String stageCounts(List<String> keys) {
        return "decided/quota/granted/assigned/registered/TargetMet = " + tracker.count(keys, t -> t.decided) + " "
                + tracker.count(keys, t -> t.quota) + " " + tracker.count(keys, t -> t.granted) + " "
                + tracker.count(keys, t -> t.assigned) + " " + tracker.count(keys, t -> t.registered) + " "
                + tracker.count(keys, t -> t.targetMet) + " of " + keys.size();
    }

    /** The status conditions of the first pool that is not TargetMet, as the REST API shows it (demo pools only). */
    private String describe(List<String> keys) {
        for (String key : keys) {
            Trace trace = tracker.trace(key);
            if (trace != null && trace.targetMet == 0) {
                StringBuilder text = new StringBuilder(key);
                if (key.startsWith(DEMO_ORG + "/")) {
                    Answer answer =
                            client.get(api, BenchClient.POOLS + "/" + key.substring(DEMO_ORG.length() + 1), DEMO_TOKEN);
                    try {
                        var pool = json.readTree(answer.body());
                        text.append(" answers ")
                                .append(answer.code())
                                .append(", currentNodes ")
                                .append(pool.path("status").path("currentNodes").asText("?"));
                        for (var c : pool.path("status").path("conditions")) {
                            text.append(", ")
                                    .append(c.path("type").asText())
                                    .append('=')
                                    .append(c.path("reason").asText())
                                    .append(" (")
                                    .append(c.path("message").asText())
                                    .append(')');
                        }
                    } catch (IOException e) {
                        text.append(" answers ").append(answer.code());
                    }
                }
                return text.toString();
            }
        }
        return "–";
    }

    /** Runs {@code total} calls over {@code clients} threads; returns the wall seconds. */
    private static double concurrently(int clients, int total, IntConsumer call) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            threads.add(Thread.ofPlatform().name("bench-client-" + c).start(() -> {
                int i;
                while ((i = next.getAndIncrement()) < total) {
                    call.accept(i);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private String nextRestPool() {
        return restPoolName(restPoolCounter.incrementAndGet());
    }

    private static String restPoolName(int i) {
        return String.format(Locale.ROOT, "bw-%05d", i);
    }

    private String org(int i) {
        return "bench-org-" + (i % pipelineOrgs);
    }

    private String uid(Answer answer) {
        try {
            return json.readTree(answer.body()).path("metadata").path("uid").asText("");
        } catch (IOException e) {
            return "";
        }
    }

    private void noteError(String what, Answer answer) {
        synchronized (notes) {
            if (notes.size() < 20) {
                String body = answer.body() == null ? "" : answer.body();
                notes.add(what + " answered " + answer.code() + ": " + body.substring(0, Math.min(200, body.length())));
            }
        }
    }

    private static String errors(Samples samples) {
        return samples.errors() == 0 ? "0 errors" : "**" + samples.errors() + " errors** (see notes)";
    }

    private static void require(boolean ok, String what, Answer answer) {
        if (!ok) {
            throw new IllegalStateException(what + " answered " + answer.code() + ": " + answer.body());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------------------------------------------- report

    private String report() {
        List<String> overrides = Settings.overrides();
        StringBuilder md = new StringBuilder();
        md.append("# Node Pool pipeline benchmark, run ").append(runId).append("\n\n");
        md.append("| machine and stack | |\n| --- | --- |\n");
        md.append(MachineInfo.rows(start));
        md.append("| stack | 1 KRaft broker + 5 services as child processes (system-test harness), heap ")
                .append(serviceHeap)
                .append(" each, 3 partitions, exactly_once_v2, commit.interval.ms ")
                .append(Baseline.servicesStreamsSettings(MachineInfo.PROJECT_ROOT, serviceProperties)
                        .get("commit.interval.ms"))
                .append(", poll.ms 100 " + "(Streams default); provisioner boot-time ")
                .append(bootTime)
                .append(", timer-interval ")
                .append(timerInterval)
                .append(", boot-failure-rate 0")
                .append(serviceProperties.isEmpty() ? "" : "; extra " + serviceProperties)
                .append(" |\n");
        md.append("| fleet (machines per ledger, sized to the plan + ")
                .append(headroom)
                .append(") | ")
                .append(fleetSummary())
                .append(" |\n");
        md.append("| stack start | ").append(Samples.seconds(stackStartSeconds)).append(" until all five ready |\n");
        md.append("| settings | ")
                .append(overrides.isEmpty() ? "the defaults" : String.join(", ", overrides))
                .append(" |\n\n");

        md.append("## Issue 12's and issue 25's targets\n\n");
        if (!overrides.isEmpty()) {
            md.append("*This run was given settings: the targets are for a run with the defaults.*\n\n");
        }
        Targets.Measured measured = new Targets.Measured(
                pipelinePools,
                pipelineNodes,
                pipelineRate,
                postToTargetMet,
                postAnswered,
                costs.get(PIPELINE),
                baseline,
                bigPool,
                records);
        md.append(Targets.table(Targets.lines(measured), "chain of " + createPath.k() + " hops"))
                .append('\n');
        md.append("The create path, ")
                .append(createPath.summary())
                .append(": ")
                .append(String.join(
                        " → ",
                        createPath.hops().stream()
                                .map(h -> h.service() + " `" + h.writes() + "`")
                                .toList()))
                .append(".");
        if (baseline != null) {
            md.append(" The baseline chain ran them as ")
                    .append(baseline.apps())
                    .append(" Streams apps in one JVM with ")
                    .append(baseline.settings())
                    .append('.');
        }
        List<Row> allRows = new ArrayList<>(rows);
        allRows.addAll(bigPool.rows());
        md.append("\n\n## Results\n\n").append(ReportTables.results(allRows));
        if (!hops.isEmpty()) {
            md.append("\n## Where a pool's time goes (3): time since the POST was sent when each stage became visible "
                    + "(read_committed)\n\n");
            md.append("| stage | p50 ms | p90 ms | p99 ms |\n| --- | ---: | ---: | ---: |\n");
            hops.forEach(h -> md.append("| ").append(String.join(" | ", h)).append(" |\n"));
        }
        stageTables.forEach((title, table) -> {
            md.append("\n## Pipeline ")
                    .append(title)
                    .append(": when the K pools reached each stage, from the first " + "publish\n\n");
            md.append("| stage | reached | first | 50% | 90% | 100% | K / time to 100% | steady (10%→90%) |\n");
            md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
            table.forEach(s -> md.append("| ").append(String.join(" | ", s)).append(" |\n"));
        });
        if (profiles != null && profiles.ran()) {
            md.append("\n## Profiles of benchmark 4 (JFR execution samples; recordings in `")
                    .append(stack.logs().resolve("profiles"))
                    .append("`)\n")
                    .append(profiles.section(12));
        }
        if (!sustainedSteps.isEmpty() || !chainSteps.isEmpty()) {
            md.append("\n## Sustained load (S): pools offered at rising steady rates, ")
                    .append(Settings.integer("sustained-seconds", 20))
                    .append(" s a step\n\nThe pools (publish to `nodepool-requested` → TargetMet): sustained capacity ")
                    .append(Samples.rate(SustainedLoad.capacity(sustainedSteps), "pools/s"))
                    .append(", at any latency ")
                    .append(Samples.rate(SustainedLoad.boundedCapacity(sustainedSteps), "pools/s"))
                    .append(".\n\n")
                    .append(SustainedLoad.table(sustainedSteps))
                    .append("\nThe baseline chain (first topic → last hop), during phase B: sustained capacity ")
                    .append(Samples.rate(SustainedLoad.capacity(chainSteps), "records/s"))
                    .append(", at any latency ")
                    .append(Samples.rate(SustainedLoad.boundedCapacity(chainSteps), "records/s"))
                    .append(".\n\n")
                    .append(SustainedLoad.table(chainSteps));
        }
        if (bigPool.ran()) {
            md.append("\n## A ")
                    .append(String.format(Locale.ROOT, "%,d", bigPool.nodes()))
                    .append("-node pool beside one-node pools of another org (7)\n\n")
                    .append(bigPool.section());
        }
        if (records != null && records.anyRead()) {
            md.append("\n## Largest records written, per topic (the 10 largest)\n\n")
                    .append(records.section(10));
        }
        String bigPoolNodes = "7: nodes of its pools (" + bigPool.nodes() + " + " + bigPool.smallPools() + " × 1)";
        if (!costs.isEmpty() || baseline != null || bigPool.cost() != null) {
            Map<String, PhaseCost> perItem = new LinkedHashMap<>();
            Map<String, List<String>> whose = new LinkedHashMap<>();
            costs.forEach((id, cost) -> {
                perItem.put(id + ": pools", cost);
                whose.put(id + ": pools", CpuMeter.STACK);
            });
            if (bigPool.cost() != null) {
                perItem.put(bigPoolNodes, bigPool.cost());
                whose.put(bigPoolNodes, CpuMeter.STACK);
            }
            if (baseline != null) {
                perItem.put("B: baseline records", baseline.cost());
                whose.put("B: baseline records", Baseline.PROCESSES);
            }
            md.append("\n## Cost per pool (per record for the baseline), from the first publish until the broker is "
                            + "quiet\n\n")
                    .append(ReportTables.costPerItem(perItem, whose));
        }
        PhaseCost pipeline = costs.get(PIPELINE);
        if (pipeline != null) {
            md.append("\n## What benchmark 4 wrote to the broker, per pool\n\n")
                    .append(ReportTables.writtenPerTopic(pipeline, 30));
        }
        if (bigPool.cost() != null) {
            md.append("\n## What benchmark 7 wrote to the broker, per node\n\n")
                    .append(ReportTables.writtenPerTopic(bigPool.cost(), 10));
        }
        if (baseline != null) {
            md.append("\n## What the baseline chain wrote to the broker, per record\n\n")
                    .append(ReportTables.writtenPerTopic(baseline.cost(), 8));
        }
        md.append("\n## CPU seconds used per phase (2 cores = 2 CPU-s per wall second)\n\n")
                .append(ReportTables.cpuPerPhase(phases.usage()));
        md.append("\nREST figures are measured by one client JVM on the same machine (java.net.http, HTTP/1.1 "
                + "keep-alive), from sending the request to reading the whole answer. Stage times come from a read_committed "
                + "consumer of the benchmark (the moment a fact became visible to the next reader). Other engineers' tests "
                + "share this machine: see the load average and the 'not ours' CPU column before trusting a figure.\n");
        md.append(ReportTables.footer(notes, stack));
        return md.toString();
    }

    private String fleetSummary() {
        List<String> parts = new ArrayList<>();
        addGroup(parts, "REST", restLedgers);
        addGroup(parts, "convergence", List.of(convergeLedger));
        addGroup(parts, "pipeline", pipelineLedgers);
        if (hotPools > 0) {
            addGroup(parts, "one-ledger", List.of(hotLedger));
        }
        if (bigPool.fleetSummary() != null) {
            parts.add(bigPool.fleetSummary());
        }
        return String.join("; ", parts);
    }

    private void addGroup(List<String> parts, String what, List<String> ledgers) {
        var sizes = ledgers.stream()
                .map(fleet::get)
                .filter(Objects::nonNull)
                .mapToInt(Integer::intValue)
                .summaryStatistics();
        if (sizes.getCount() == 0) {
            return;
        }
        parts.add(what + ": " + (ledgers.size() == 1 ? ledgers.get(0) : ledgers.size() + " ledgers") + " × "
                + (sizes.getMin() == sizes.getMax() ? sizes.getMin() : sizes.getMin() + "–" + sizes.getMax()));
    }
}
