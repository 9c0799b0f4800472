package com.coreweave.nodepool.systemtest.bench;

import static com.coreweave.nodepool.systemtest.bench.Phases.log;

import com.coreweave.nodepool.systemtest.StaticTokenProperty;
import com.coreweave.nodepool.systemtest.bench.BenchClient.Answer;
import com.coreweave.nodepool.systemtest.bench.ReportTables.Row;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The scale run ({@code ./stack bench --scale}, never part of the tests): one stack holding many pools and nodes over
 * several orgs, zones and instance types ({@link ScalePlan}), created through {@code nodepool-requested} and waited for
 * until every pool is TargetMet; then, at that size, GET one pool (right after, and once the stack is quiet), LIST with
 * Kubernetes paging, the resident memory of each service, and each service killed (SIGKILL) and restarted until ready
 * with its stores restored. What the system cannot do yet (a ledger larger than it accepts, LIST without paging) is
 * measured as far as it goes and reported as "not supported yet". Sizes are settings, so the run can be tried small.
 */
public final class ScaleBenchmark {

    private static final String ADMIN_TOKEN = PipelineBenchmark.ADMIN_TOKEN;
    private static final long GIB = 1024L * 1024 * 1024;
    private static final double GET_P99_MS = 10;
    private static final double LIST_PAGE_P99_MS = 150;
    private static final double RESIDENT_GIB = 1.5;
    private static final double RESTART_SECONDS = 60;
    private static final int PAGE = 500;
    /** The broker and the services together below this many CPU-seconds a second, 3 s in a row, are quiet. */
    private static final double QUIET_CPU_PER_SECOND = 0.3;

    private static final int QUIET_SECONDS = 3;
    private static final Duration SETTLE_AT_MOST = Duration.ofMinutes(3);

    private final int gets = Settings.integer("scale-gets", 1000);
    private final int listPages = Settings.integer("scale-list-pages", 100);
    private final String serviceHeap = Settings.text("service-heap", "1g");
    private final Duration timeout = Duration.ofSeconds(Settings.integer("scale-timeout-seconds", 6 * 3600));
    private final Path outDir = Path.of(Settings.text("output-dir", "target")).toAbsolutePath();

    private final MachineInfo.Start start = MachineInfo.Start.now();
    private final String runId = start.runId();
    private final BenchClient client = new BenchClient();
    private final ObjectMapper json = new ObjectMapper();
    private final List<String> notes = new ArrayList<>();
    private final Phases phases = new Phases(notes);
    private final List<Row> rows = new ArrayList<>();
    /** The scale table: figure, measured, target, mark, how. */
    private final List<String[]> figures = new ArrayList<>();

    private ScalePlan plan;
    private Stack stack;
    private PoolTracker tracker;
    private URI api;
    /** Set when not every pool reached TargetMet in time. */
    private String unmet;

    public static void main(String[] args) {
        Phases.runAndExit(() -> new ScaleBenchmark().run());
    }

    void run() throws Exception {
        ScalePlan.Sizes sizes = ScalePlan.Sizes.fromSettings();
        log("scale run " + runId + ": " + sizes + "; load average " + MachineInfo.load(start.load()));
        try {
            startStack(sizes);
            phases.run("plan, fleet and quotas", () -> fleetAndQuotas(sizes));
            phases.run("create every pool and wait for TargetMet", this::createAll);
            phases.run("GET one pool, right after", () -> getOne(false));
            phases.run("wait until the stack is quiet", this::settle);
            phases.run("GET one pool", () -> getOne(true));
            phases.run("LIST with paging", this::listPaged);
            phases.run("resident memory", this::residentMemory);
            phases.run("kill -9 and restart each service", this::restarts);
        } finally {
            Phases.stop(stack, tracker);
            Phases.publish(report(), outDir, "benchmark-scale-" + runId);
        }
        phases.requireNoFailure();
        if (unmet != null) {
            throw new IllegalStateException(unmet);
        }
    }

    private void startStack(ScalePlan.Sizes sizes) {
        Stack.Builder builder = Stack.builder()
                .withServices(Service.values())
                .withServiceHeap(serviceHeap)
                .withProperty(Service.PROVISIONER, "provisioner.boot-time", "0s")
                .withProperty(Service.PROVISIONER, "provisioner.boot-failure-rate", "0")
                .withProperty(Service.CAPACITY, "nodepool.capacity.fleet-change-timeout", "60s");
        for (String org : sizes.orgs()) {
            builder.withProperty(Service.API, StaticTokenProperty.name(token(org)), StaticTokenProperty.value(org));
        }
        log("starting the stack (broker + 5 services, heap " + serviceHeap + " each)");
        stack = builder.build().start();
        api = stack.url(Service.API);
    }

    /** Plans over the catalogue's ledgers, then sets fleets (as large as accepted) and quotas. */
    private void fleetAndQuotas(ScalePlan.Sizes sizes) throws Exception {
        JsonNode catalogue = json.readTree(require(
                        client.get(stack.url(Service.CAPACITY), "/instance-types", ADMIN_TOKEN),
                        "the instance-type catalogue")
                .body());
        List<String> ledgers = new ArrayList<>();
        catalogue.forEach(type -> type.path("zones")
                .forEach(zone ->
                        ledgers.add(zone.asText() + "/" + type.path("name").asText())));
        plan = ScalePlan.over(sizes, ledgers);
        notes.addAll(plan.notes());
        URI capacity = stack.url(Service.CAPACITY);
        int accepted = Integer.MAX_VALUE;
        for (int l = 0; l < plan.ledgers().size(); l++) {
            String ledger = plan.ledgers().get(l);
            int wanted = plan.machines(l);
            Answer answer = setFleet(capacity, ledger, Math.min(wanted, accepted));
            if (!answer.ok()) {
                int largest = largestFleet(capacity, ledger, Math.min(wanted, accepted));
                figures.add(new String[] {
                    "a ledger of " + String.format(Locale.ROOT, "%,d", wanted) + " machines",
                    "at most " + String.format(Locale.ROOT, "%,d", largest) + " accepted",
                    "accepted",
                    "**not supported yet**",
                    "capacity-service answered " + answer.code() + ": " + message(answer)
                            + "; every ledger of this run holds at most " + String.format(Locale.ROOT, "%,d", largest)
                            + " machines and its pools share them (fewer nodes each, some none)"
                });
                accepted = largest;
            }
            plan.limitLedger(l, Math.min(wanted, accepted));
        }
        URI quota = stack.url(Service.QUOTA);
        for (int l = 0; l < plan.ledgers().size(); l++) {
            for (String org : sizes.orgs()) {
                require(
                        client.put(
                                quota,
                                "/admin/quotas/" + org + "/" + plan.ledgers().get(l),
                                ADMIN_TOKEN,
                                "{\"maxNodes\": " + plan.machines(l) + "}"),
                        "quota " + org + "/" + plan.ledgers().get(l));
            }
        }
        log(plan.summary());
    }

    private Answer setFleet(URI capacity, String ledger, int machines) {
        Answer answer = client.put(capacity, "/admin/fleet/" + ledger, ADMIN_TOKEN, "{\"machines\": " + machines + "}");
        if (!answer.ok() && answer.code() != 422) {
            throw new IllegalStateException("fleet " + ledger + " answered " + answer.code() + ": " + answer.body());
        }
        return answer;
    }

    /** The largest fleet the ledger accepts below {@code refused} (bisection), which it is left with. */
    private int largestFleet(URI capacity, String ledger, int refused) {
        int low = 0;
        int high = refused;
        while (high - low > 1) {
            int middle = (low + high) / 2;
            if (setFleet(capacity, ledger, middle).ok()) {
                low = middle;
            } else {
                high = middle;
            }
        }
        require(setFleet(capacity, ledger, low), "fleet " + ledger);
        return low;
    }

    /** Publishes every pool's request at once, then waits until every pool is TargetMet (or the timeout). */
    private void createAll() throws Exception {
        tracker = new PoolTracker(stack.bootstrapServers(), PoolTracker.STATUS_ONLY);
        long start = System.nanoTime();
        try (KafkaProducer<String, String> producer = Requests.producer(stack.bootstrapServers())) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < plan.pools(); i++) {
                String key = plan.org(i) + "/" + plan.name(i);
                tracker.expect(key, plan.nodes(i));
                sent.add(producer.send(new ProducerRecord<>(
                        PipelineBenchmark.REQUESTED,
                        key,
                        Requests.apply(runId, key, Requests.manifest(plan.name(i), plan.ledgerOf(i), plan.nodes(i))))));
            }
            producer.flush();
            for (Future<?> future : sent) {
                future.get();
            }
        }
        log(String.format(
                Locale.ROOT, "%,d requests published in %.1f s", plan.pools(), (System.nanoTime() - start) / 1e9));
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < plan.pools(); i++) {
            keys.add(plan.org(i) + "/" + plan.name(i));
        }
        long deadline = start + timeout.toNanos();
        long lastLog = start;
        int met;
        while ((met = tracker.count(keys, t -> t.targetMet)) < keys.size() && System.nanoTime() < deadline) {
            tracker.check();
            if (System.nanoTime() - lastLog > 30e9) {
                lastLog = System.nanoTime();
                log(String.format(
                        Locale.ROOT, "%.0f s: %,d of %,d pools TargetMet", (lastLog - start) / 1e9, met, keys.size()));
            }
            Thread.sleep(200);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        boolean all = met == keys.size();
        figures.add(new String[] {
            String.format(Locale.ROOT, "%,d pools and %,d nodes TargetMet", plan.pools(), plan.totalNodes()),
            String.format(
                    Locale.ROOT,
                    "%,d pools after %.0f s (%.1f pools/s, %.0f nodes/s)",
                    met,
                    seconds,
                    met / seconds,
                    plan.totalNodes() * ((double) met / keys.size()) / seconds),
            "every pool",
            all ? "met" : "**short**",
            "published at once to `nodepool-requested` (" + plan.summary()
                    + "); a read_committed consumer of `nodepool-status` sees each AtTarget/TargetMet with all its nodes"
        });
        if (!all) {
            // The figures below are still worth having at the size reached; the run fails at its end.
            unmet = String.format(
                    Locale.ROOT,
                    "only %,d of %,d pools reached TargetMet within %d s",
                    met,
                    keys.size(),
                    timeout.toSeconds());
            notes.add("**" + unmet + "**; the figures below were measured at that size");
        }
    }

    /**
     * Waits until the stack is quiet. Right after the last TargetMet the services still commit, flush and compact their
     * RocksDB stores and the broker cleans its compacted topics; a read measured then measures that work too.
     */
    private void settle() throws InterruptedException {
        long begin = System.nanoTime();
        CpuMeter.Snapshot last = CpuMeter.snapshot();
        int quiet = 0;
        while (quiet < QUIET_SECONDS && System.nanoTime() - begin < SETTLE_AT_MOST.toNanos()) {
            Thread.sleep(1000);
            CpuMeter.Snapshot now = CpuMeter.snapshot();
            CpuMeter.Usage second = CpuMeter.between("settle", last, now);
            quiet = second.of(CpuMeter.STACK) / second.wall() < QUIET_CPU_PER_SECOND ? quiet + 1 : 0;
            last = now;
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        notes.add(String.format(
                Locale.ROOT,
                quiet >= QUIET_SECONDS
                        ? "The stack was quiet %.0f s after the last TargetMet (broker and services below %.1f CPU-s a second, %d s "
                                + "in a row); S1 and S2 were measured then, S1a before it."
                        : "The stack was not quiet %.0f s after the last TargetMet (broker and services at or above %.1f CPU-s a "
                                + "second; %d s in a row were wanted); S1 and S2 were measured anyway.",
                seconds,
                QUIET_CPU_PER_SECOND,
                QUIET_SECONDS));
    }

    /** 1000 GETs of random pools; {@code quiet}: the target's measurement (S1), else the one right after (S1a). */
    private void getOne(boolean quiet) {
        Samples samples = new Samples();
        Random random = new Random(42);
        long start = System.nanoTime();
        for (int n = 0; n < gets; n++) {
            int i = random.nextInt(plan.pools());
            Answer answer = client.get(api, BenchClient.POOLS + "/" + plan.name(i), token(plan.org(i)));
            if (answer.code() == 200) {
                samples.add(answer.nanos());
            } else {
                samples.error();
                noteError("GET " + plan.name(i), answer);
            }
        }
        String id = quiet ? "S1" : "S1a";
        rows.add(new Row(
                id,
                "GET one pool (random pools of every org), 1 client, "
                        + (quiet ? "once the stack is quiet" : "right after the last TargetMet"),
                samples.count(),
                samples,
                Samples.rate(samples.count() / ((System.nanoTime() - start) / 1e9), "req/s"),
                samples.errors() + " errors"));
        if (quiet) {
            figures.add(scaleFigure(
                    "GET one pool p99",
                    samples,
                    GET_P99_MS,
                    "S1: " + samples.count() + " GETs, 1 client, " + "once the stack is quiet"));
        } else {
            figures.add(new String[] {
                "GET one pool p99, right after the last TargetMet",
                Samples.ms(samples.percentileMillis(99)) + " ms",
                "–",
                "",
                "S1a: the same GETs while the stack still works off the " + "creation (compactions, commits)"
            });
        }
    }

    /**
     * Pages through the orgs' pools with {@code limit=500} and {@code continue} (Kubernetes list paging). First a
     * {@code limit=1} probe on an org with two pools or more: an answer with more than one item, or without
     * {@code continue}, means the API does not page yet, and the whole list of one org is timed instead.
     */
    private void listPaged() throws Exception {
        String org = plan.sizes().orgs().get(0);
        JsonNode probe =
                json.readTree(require(client.get(api, BenchClient.POOLS + "?limit=1", token(org)), "LIST of " + org)
                        .body());
        if (plan.poolsOf(org) > 1
                && (probe.path("items").size() > 1
                        || probe.path("metadata").path("continue").asText("").isEmpty())) {
            unpaged(org, probe.path("items").size());
            return;
        }
        Samples pages = new Samples();
        int listed = 0;
        for (String next = ""; pages.count() < listPages; ) {
            Answer answer = client.get(
                    api,
                    BenchClient.POOLS + "?limit=" + PAGE
                            + (next.isEmpty() ? "" : "&continue=" + URLEncoder.encode(next, StandardCharsets.UTF_8)),
                    token(org));
            JsonNode list = json.readTree(require(answer, "LIST of " + org).body());
            pages.add(answer.nanos());
            listed += list.path("items").size();
            next = list.path("metadata").path("continue").asText("");
            if (next.isEmpty()) {
                int following = plan.sizes().orgs().indexOf(org) + 1;
                if (following == plan.sizes().orgCount()) {
                    break;
                }
                org = plan.sizes().orgs().get(following);
            }
        }
        rows.add(new Row(
                "S2",
                "LIST, pages of " + PAGE + " (`limit` and `continue`), 1 client",
                pages.count(),
                pages,
                "–",
                String.format(Locale.ROOT, "%,d pools listed", listed)));
        figures.add(scaleFigure(
                "LIST, one page of " + PAGE + ", p99",
                pages,
                LIST_PAGE_P99_MS,
                "S2: every page of the orgs in turn, up to " + listPages + " pages"));
    }

    private void unpaged(String org, int firstAnswer) {
        Samples whole = new Samples();
        int bytes = 0;
        for (int n = 0; n < 3; n++) {
            Answer answer = client.get(api, BenchClient.POOLS, token(org));
            if (answer.code() == 200) {
                whole.add(answer.nanos());
                bytes = answer.body().length();
            } else {
                whole.error();
                noteError("LIST of " + org, answer);
            }
        }
        rows.add(new Row(
                "S2",
                "LIST of one org's " + String.format(Locale.ROOT, "%,d", plan.poolsOf(org))
                        + " pools, unpaged, 1 client",
                whole.count(),
                whole,
                "–",
                String.format(Locale.ROOT, "%,d KiB per answer", bytes / 1024)));
        figures.add(new String[] {
            "LIST, one page of " + PAGE + ", p99",
            "–",
            "≤ " + Samples.ms(LIST_PAGE_P99_MS) + " ms",
            "**not supported yet**",
            "`limit=1` answered "
                    + firstAnswer + " items and no `continue`: LIST has no paging; the whole list of one org took p99 "
                    + Samples.ms(whole.percentileMillis(99)) + " ms (S2)"
        });
    }

    private void residentMemory() {
        // The scale run's stack has one process per component.
        StackProcesses.byComponent().forEach((component, processes) -> {
            long[] memory = StackProcesses.residentBytes(processes.get(0));
            boolean service = StackProcesses.SERVICES.contains(component);
            figures.add(new String[] {
                "resident memory, " + component,
                gib(memory[0]) + " now, " + gib(memory[1]) + " at most",
                service ? "≤ " + RESIDENT_GIB + " GiB" : "–",
                !service ? "" : memory[1] < 0 ? "?" : memory[1] <= RESIDENT_GIB * GIB ? "met" : "**short**",
                "VmRSS and VmHWM (the peak) from /proc; heap " + (service ? serviceHeap : "512m") + " (-Xmx)"
            });
        });
    }

    /** Each service in turn: SIGKILL, start again, until ready (Streams RUNNING: every store restored). */
    private void restarts() {
        for (Service service : Service.values()) {
            long start = System.nanoTime();
            stack.kill9(service);
            String measured;
            String mark;
            try {
                stack.restart(service);
                double seconds = (System.nanoTime() - start) / 1e9;
                measured = String.format(Locale.ROOT, "%.1f s", seconds);
                if (service == Service.API) {
                    int i = new Random().nextInt(plan.pools());
                    Answer answer = client.get(api, BenchClient.POOLS + "/" + plan.name(i), token(plan.org(i)));
                    measured += answer.code() == 200
                            ? ", a GET answers 200 right after"
                            : ", a GET answered " + answer.code();
                }
                mark = seconds <= RESTART_SECONDS ? "met" : "**short**";
            } catch (RuntimeException e) {
                measured = "not ready: " + e.getMessage().lines().findFirst().orElse("");
                mark = "**short**";
            }
            figures.add(new String[] {
                "kill -9 and restart, " + service.module(),
                measured,
                "≤ " + RESTART_SECONDS + " s",
                mark,
                "from SIGKILL until /q/health/ready answers 200 (Kafka Streams RUNNING: its stores restored from the "
                        + "changelogs; exactly-once wipes the local state of a crashed instance)"
            });
        }
    }

    private String[] scaleFigure(String figure, Samples samples, double target, String how) {
        double p99 = samples.percentileMillis(99);
        return new String[] {
            figure,
            Samples.ms(p99) + " ms",
            "≤ " + Samples.ms(target) + " ms",
            Double.isNaN(p99) ? "not measured" : p99 <= target ? "met" : "**short**",
            how
        };
    }

    private String report() {
        StringBuilder md = new StringBuilder();
        md.append("# Node Pool scale run ").append(runId).append("\n\n| machine and stack | |\n| --- | --- |\n");
        md.append(MachineInfo.rows(start));
        md.append("| stack | 1 KRaft broker (heap 512m) + 5 services (heap ")
                .append(serviceHeap)
                .append(" each) as child processes, 3 partitions, exactly_once_v2; provisioner boot-time 0s |\n");
        md.append("| plan | ").append(plan == null ? "–" : plan.summary()).append(" |\n");
        md.append("| settings | ")
                .append(Settings.overrides().isEmpty() ? "the defaults" : String.join(", ", Settings.overrides()))
                .append(" |\n\n");
        md.append("## At scale\n\n| figure | measured | target | | how |\n| --- | --- | --- | --- | --- |\n");
        figures.forEach(f -> md.append("| ").append(String.join(" | ", f)).append(" |\n"));
        if (!rows.isEmpty()) {
            md.append("\n## Latencies\n\n").append(ReportTables.results(rows));
        }
        md.append("\n## CPU seconds used per phase\n\n").append(ReportTables.cpuPerPhase(phases.usage()));
        md.append(ReportTables.footer(notes, stack));
        return md.toString();
    }

    private static String token(String org) {
        return org + "-token";
    }

    private static String gib(long bytes) {
        return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.2f GiB", (double) bytes / GIB);
    }

    private String message(Answer answer) {
        try {
            return json.readTree(answer.body()).path("message").asText(answer.body());
        } catch (Exception e) {
            return answer.body();
        }
    }

    private void noteError(String what, Answer answer) {
        if (notes.size() < 20) {
            notes.add(what + " answered " + answer.code() + ": "
                    + answer.body().substring(0, Math.min(200, answer.body().length())));
        }
    }

    private static Answer require(Answer answer, String what) {
        if (!answer.ok()) {
            throw new IllegalStateException(what + " answered " + answer.code() + ": " + answer.body());
        }
        return answer;
    }
}
