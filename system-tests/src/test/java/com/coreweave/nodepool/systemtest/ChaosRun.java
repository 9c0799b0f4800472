package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The fault harness ({@code ./stack chaos}, and a short round of its cluster faults in {@link ClusterFailoverIT}): runs
 * {@link ChaosLoad} against the stack while it injects faults one at a time — kill -9 of each service (then a restart),
 * kill -9 of the broker (then a restart on the same data), SIGSTOP of a service for longer than its session timeout
 * (then SIGCONT) — and times each recovery: from the fault until every service is ready and a pool created after the
 * fault reaches TargetMet. Then it stops the load and {@link ChaosFindings} fills the {@link FaultTable} from the
 * topics.
 *
 * <p>The load's three orgs share one scarce ledger ({@link #LOAD}: 14 machines, quotas of 8, 6 and 6), so requests go
 * over quota and queue; the recovery probes use a ledger of their own ({@link #PROBES}).
 */
public final class ChaosRun {

    static final String ZONE = "US-CENTRAL-07A";
    static final String PROBE_ORG = "chaos-probe";
    /** The org of {@link FirstTries}' pools (of target 0, so outside every ledger). */
    static final String FIRST_TRY_ORG = "first-try";
    /** The load's ledger: scarce, so requests go over quota and queue. */
    static final Invariants.Setup LOAD = new Invariants.Setup(ZONE, "gd-8xl40s-i128", 14, orderedQuotas());
    /** The recovery probes' ledger, so a probe never waits behind the load. */
    static final Invariants.Setup PROBES = new Invariants.Setup(ZONE, "gd-8xb200ib-i128", 6, Map.of(PROBE_ORG, 6));

    private static final Logger LOG = Logger.getLogger(ChaosRun.class.getName());

    /** How long and how hard: {@code -Dchaos.<name>=<value>} (docs/reliability.md). */
    record Settings(
            int rounds,
            Duration pause,
            Duration warmup,
            Duration calm,
            Duration recoveryTimeout,
            Duration settle,
            long seed) {

        static Settings of(int defaultRounds) {
            return new Settings(
                    Integer.getInteger("chaos.rounds", defaultRounds),
                    seconds("chaos.pause-seconds", 15),
                    seconds("chaos.warmup-seconds", 15),
                    seconds("chaos.calm-seconds", 5),
                    seconds("chaos.recovery-timeout-seconds", 180),
                    seconds("chaos.settle-seconds", 180),
                    Long.getLong("chaos.seed", 20261123L));
        }

        private static Duration seconds(String property, int fallback) {
            return Duration.ofSeconds(Integer.getInteger(property, fallback));
        }
    }

    /** What a fault does. */
    enum Kind {
        KILL,
        PAUSE,
        KILL_BROKER,
        /** Each broker stopped and started again in turn, the next once every partition has all its replicas back. */
        ROLL_BROKERS,
        /** Each instance of every service restarted in turn, the next once it is ready: a Kubernetes rollout. */
        ROLL_SERVICES
    }

    /** One fault to inject: of what kind, on which service's instance (1, 2; none for the brokers' faults). */
    record Fault(String row, Kind kind, Service service, int instance) {}

    private final Stack stack;
    private final Settings settings;
    private final Predicate<Fault> chosen;
    private final List<ChaosLoad.Sent> probes = new ArrayList<>();
    private final List<String> evidence = new ArrayList<>();
    /** What the load's REST clients saw during each kind of fault (from the fault until it recovered). */
    private final Map<String, RestAvailability.Counts> availability = new LinkedHashMap<>();
    /** The instances the last wait for readiness waited for last. */
    private List<String> lastNotReady = List.of();
    /** A client creating pools one after another from the first fault until the last recovered, when asked for. */
    private FirstTries firstTries;

    private boolean measureFirstTries;

    ChaosRun(Stack stack, Settings settings) {
        this(stack, settings, fault -> true);
    }

    /** Injects only the faults {@code chosen} takes of each round's. */
    ChaosRun(Stack stack, Settings settings, Predicate<Fault> chosen) {
        this.stack = stack;
        this.settings = settings;
        this.chosen = chosen;
    }

    /**
     * Also runs {@link FirstTries} in org {@link #FIRST_TRY_ORG} from the first fault until the last one recovered,
     * reported as the share of its creates answered at the first try; {@link #firstTries()} after {@link #run()}.
     */
    ChaosRun measuringFirstTries() {
        measureFirstTries = true;
        return this;
    }

    FirstTries firstTries() {
        return firstTries;
    }

    /** The faults of the kinds named, comma-separated ({@code -Dchaos.faults=ROLL_SERVICES,KILL}); all when none. */
    static Predicate<Fault> kinds(String names) {
        if (names.isBlank()) {
            return fault -> true;
        }
        Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        for (String name : names.split(",")) {
            kinds.add(Kind.valueOf(name.trim().toUpperCase(Locale.ROOT)));
        }
        return fault -> kinds.contains(fault.kind());
    }

    public static void main(String[] args) {
        Settings settings = Settings.of(3);
        int status;
        long started = System.nanoTime();
        Stack.Builder builder = SystemStack.configured();
        if (Boolean.getBoolean("chaos.cluster")) {
            builder.withCluster();
        }
        try (Stack stack = builder.build().start()) {
            ChaosRun chaos = new ChaosRun(stack, settings, kinds(System.getProperty("chaos.faults", "")));
            FaultTable table = chaos.run();
            String report = chaos.report(table, Duration.ofNanos(System.nanoTime() - started));
            System.out.println(report);
            Path out = Path.of(System.getProperty("chaos.output-dir", "target"))
                    .resolve("chaos-"
                            + Instant.now()
                                    .truncatedTo(ChronoUnit.SECONDS)
                                    .toString()
                                    .replace(":", "") + ".md");
            Files.writeString(out, report);
            System.out.println("written to " + out.toAbsolutePath());
            status = table.clean() ? 0 : 1;
        } catch (Exception | AssertionError e) {
            e.printStackTrace();
            status = 2;
        }
        System.exit(status);
    }

    /** Sets up the ledgers, runs the load through every round of faults, and checks what the topics say. */
    FaultTable run() {
        for (Invariants.Setup ledger : List.of(LOAD, PROBES)) {
            ledger.quotas().forEach((org, max) -> SystemStack.quota(stack, org, ZONE, ledger.instanceType(), max));
            SystemStack.fleet(stack, ZONE, ledger.instanceType(), ledger.fleetSize());
        }
        List<FaultTable.Injected> injected = new ArrayList<>();
        ChaosLoad load = new ChaosLoad(
                stack, ZONE, LOAD.instanceType(), List.copyOf(LOAD.quotas().keySet()), settings.seed());
        try (load) {
            load.start();
            sleep(settings.warmup());
            if (measureFirstTries) {
                firstTries = new FirstTries(
                                stack.urls(Service.API), SystemStack.token(FIRST_TRY_ORG), PROBES.instanceType())
                        .start();
            }
            try (FirstTries during = firstTries) {
                for (int round = 1; round <= settings.rounds(); round++) {
                    for (Fault fault : faults(round)) {
                        if (during != null) {
                            during.during(fault.row());
                        }
                        RestAvailability.Counts before = load.availability.now();
                        injected.add(inject(fault, round));
                        RestAvailability.Counts after = load.availability.now().minus(before);
                        availability.merge(fault.row(), after, RestAvailability.Counts::plus);
                        sleep(settings.calm());
                    }
                }
            }
        }
        LOG.info(() -> "load stopped: " + load.acks.size() + " requests acknowledged, " + load.unanswered.get()
                + " calls unanswered, " + load.poison.size() + " poison records");
        return new ChaosFindings(stack, settings.settle(), probes, evidence).check(load, injected);
    }

    /** The faults of one round: on a cluster, of one instance of two (the first, then the second, in turn). */
    private List<Fault> faults(int round) {
        List<Fault> faults = new ArrayList<>();
        boolean cluster = stack.instances() > 1;
        int instance = 1 + (round - 1) % stack.instances();
        if (cluster) {
            faults.add(new Fault("kill -9 the broker leading most partitions", Kind.KILL_BROKER, null, 0));
        }
        for (Service service : Service.values()) {
            faults.add(new Fault(
                    "kill -9 " + (cluster ? "one instance of " : "") + service.module(),
                    Kind.KILL,
                    service,
                    Math.min(instance, stack.instances(service))));
        }
        if (!cluster) {
            faults.add(new Fault("kill -9 broker", Kind.KILL_BROKER, null, 0));
        }
        Service paused = Service.values()[(round - 1) % Service.values().length];
        faults.add(new Fault(
                "SIGSTOP " + settings.pause().toSeconds() + " s, then SIGCONT (a service"
                        + (cluster ? "'s instance" : "") + " per round)",
                Kind.PAUSE,
                paused,
                Math.min(instance, stack.instances(paused))));
        if (cluster) {
            faults.add(new Fault("rolling restart of the brokers, one at a time", Kind.ROLL_BROKERS, null, 0));
            faults.add(new Fault(
                    "rolling restart of every service's instances, one at a time", Kind.ROLL_SERVICES, null, 0));
        }
        return faults.stream().filter(chosen).toList();
    }

    // ----------------------------------------------------------------------------------------------------- faults

    private FaultTable.Injected inject(Fault fault, int round) {
        Instant at = Instant.now();
        long start = System.nanoTime();
        // A rolling restart is one restart after another: each of its steps gets the recovery deadline.
        long deadline = start + settings.recoveryTimeout().toNanos() * steps(fault);
        String detail = detail(fault);
        LOG.info(() -> "round " + round + ": " + detail);
        CompletableFuture<Long> probe = null;
        try {
            switch (fault.kind()) {
                case KILL_BROKER -> {
                    int node = stack.brokerNodes().size() == 1 ? 1 : ClusterView.busiestBroker(stack);
                    LOG.info(() -> "round " + round + ": broker " + node + " leads the most partitions");
                    stack.kill9Broker(node);
                    probe = probe(at, deadline);
                    stack.restartBroker(node);
                }
                case PAUSE -> {
                    stack.pause(fault.service(), fault.instance());
                    probe = probe(at, deadline);
                    sleep(settings.pause());
                    stack.resume(fault.service(), fault.instance());
                }
                case KILL -> {
                    stack.kill9(fault.service(), fault.instance());
                    probe = probe(at, deadline);
                    stack.restart(fault.service(), fault.instance());
                }
                case ROLL_BROKERS -> {
                    probe = probe(at, deadline);
                    for (int node : stack.brokerNodes()) {
                        stack.restartBroker(node);
                        ClusterView.awaitFullyReplicated(stack, Duration.ofNanos(deadline - System.nanoTime()));
                    }
                }
                case ROLL_SERVICES -> {
                    probe = probe(at, deadline);
                    for (Service service : Service.values()) {
                        for (int i = 1; i <= stack.instances(service); i++) {
                            stack.restart(service, i);
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            evidence.add("round " + round + ", " + detail + ": " + e.getMessage());
        }
        long ready = allReady(deadline);
        long targetMet = probe == null ? -1 : probe.join();
        Duration recovery = ready < 0 || targetMet < 0 ? null : Duration.ofNanos(Math.max(ready, targetMet) - start);
        LOG.info(() -> "round " + round + ": " + detail + ": "
                + (recovery == null
                        ? "NOT recovered within "
                                + Duration.ofNanos(deadline - start).toSeconds() + " s"
                        : "recovered in " + recovery.toMillis() + " ms (every instance ready after "
                                + (ready - start) / 1_000_000 + " ms, the last " + lastNotReady
                                + "; a new pool at TargetMet after " + (targetMet - start) / 1_000_000 + " ms)"));
        if (ready < 0) {
            restartWhatIsDown(round, detail);
        }
        return new FaultTable.Injected(fault.row(), detail, at, recovery);
    }

    /** A pool created once the fault is in place, on its way to TargetMet (see {@link #newPoolTargetMet}). */
    private CompletableFuture<Long> probe(Instant faultAt, long deadline) {
        return CompletableFuture.supplyAsync(
                () -> newPoolTargetMet(faultAt, deadline),
                task -> Thread.ofPlatform().name("chaos-probe").start(task));
    }

    private int steps(Fault fault) {
        return switch (fault.kind()) {
            case ROLL_BROKERS -> stack.brokerNodes().size();
            case ROLL_SERVICES ->
                Stream.of(Service.values()).mapToInt(stack::instances).sum();
            default -> 1;
        };
    }

    private String detail(Fault fault) {
        String instance = stack.instances() > 1 ? " instance " + fault.instance() : "";
        return switch (fault.kind()) {
            case KILL -> "kill -9 " + fault.service().module() + instance;
            case PAUSE -> "SIGSTOP " + fault.service().module() + instance;
            case KILL_BROKER -> "kill -9 the broker";
            case ROLL_BROKERS -> "rolling restart of the brokers";
            case ROLL_SERVICES -> "rolling restart of the services";
        };
    }

    /** When every instance of every service answered ready (nanoTime), or -1 if one did not by the deadline. */
    private long allReady(long deadline) {
        lastNotReady = List.of();
        while (System.nanoTime() < deadline) {
            List<String> notReady = new ArrayList<>();
            for (Service service : Service.values()) {
                for (int i = 1; i <= stack.instances(service); i++) {
                    if (!stack.ready(service, i)) {
                        notReady.add(service.module() + (stack.instances() > 1 ? " " + i : ""));
                    }
                }
            }
            if (notReady.isEmpty()) {
                return System.nanoTime();
            }
            lastNotReady = notReady;
            sleep(Duration.ofMillis(250));
        }
        return -1;
    }

    private void restartWhatIsDown(int round, String detail) {
        for (Service service : Service.values()) {
            for (int i = 1; i <= stack.instances(service); i++) {
                if (!stack.ready(service, i)) {
                    evidence.add("round " + round + ", " + detail + ": " + service.module() + " instance " + i
                            + " was not ready by the recovery deadline; restarted it to go on");
                    try {
                        stack.restart(service, i);
                    } catch (RuntimeException e) {
                        evidence.add(service.module() + " instance " + i + " did not start again: " + e.getMessage());
                    }
                }
            }
        }
    }

    /**
     * Creates a one-node pool in the probe ledger (retrying while the API cannot take it) and returns when it reached
     * TargetMet (nanoTime), or -1 at the deadline; then deletes it.
     */
    private long newPoolTargetMet(Instant faultAt, long deadline) {
        String name = "probe-" + faultAt.toEpochMilli();
        synchronized (probes) {
            probes.add(new ChaosLoad.Sent(PROBE_ORG + "/" + name, faultAt));
        }
        Api api = new Api(stack.urls(Service.API), SystemStack.token(PROBE_ORG), null);
        String body = """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":1}}""".formatted(name, PROBES.instanceType(), ZONE);
        String idempotencyKey = UUID.randomUUID().toString();
        boolean created = false;
        while (!created && System.nanoTime() < deadline) {
            created = answered(() -> api.post(Api.POOLS, body, idempotencyKey).code() == 201);
            if (!created) {
                sleep(Duration.ofMillis(500));
            }
        }
        while (created && System.nanoTime() < deadline) {
            if (answered(() -> "TargetMet/True".equals(SpineIT.reason(api.get(Api.POOLS + "/" + name), "AtTarget")))) {
                long at = System.nanoTime();
                answered(() -> api.delete(Api.POOLS + "/" + name).code() == 200);
                return at;
            }
            sleep(Duration.ofMillis(250));
        }
        return -1;
    }

    private interface Call {
        boolean succeeded();
    }

    /** A call that may fail while a service or the broker is down: false when it did. */
    private static boolean answered(Call call) {
        try {
            return call.succeeded();
        } catch (RuntimeException e) {
            return false;
        }
    }

    // ----------------------------------------------------------------------------------------------------- report

    String report(FaultTable table, Duration took) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "## ./stack chaos%s: %d round(s) of %d faults, %s%n%n",
                stack.instances() > 1
                        ? " --cluster (" + stack.brokerNodes().size() + " brokers, " + stack.instances()
                                + " instances of every service)"
                        : "",
                settings.rounds(),
                faults(1).size(),
                Instant.now().truncatedTo(ChronoUnit.SECONDS)));
        out.append("Machine: ")
                .append(machine())
                .append(". Commit: ")
                .append(System.getProperty("chaos.commit", "unknown"))
                .append(String.format(
                        Locale.ROOT,
                        ". Took %.1f min (pause %d s, recovery deadline %d s).%n%n",
                        took.toSeconds() / 60.0,
                        settings.pause().toSeconds(),
                        settings.recoveryTimeout().toSeconds()));
        out.append(table.markdown());
        out.append("\nREST availability at the client during each kind of fault (from the fault until it recovered;"
                + " the load's clients spread requests over every api-service instance and retry on another after a"
                + " refused connection or a 502/503/504):\n\n");
        out.append("| fault | requests | answered without a 5xx | retries | ended in a 5xx | no answer |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
        availability.forEach((row, counts) -> out.append(String.format(
                Locale.ROOT,
                "| %s | %d | %.2f %% | %d | %d | %d |%n",
                row,
                counts.requests(),
                100 * counts.availability(),
                counts.retries(),
                counts.failed5xx(),
                counts.unanswered())));
        if (firstTries != null) {
            out.append('\n').append(firstTries.report()).append('\n');
        }
        out.append("\nFaults in order:\n");
        for (FaultTable.Injected fault : table.faults()) {
            out.append("- ")
                    .append(fault.at().truncatedTo(ChronoUnit.SECONDS))
                    .append(' ')
                    .append(fault.detail())
                    .append(": ")
                    .append(
                            fault.recovery() == null
                                    ? "not recovered"
                                    : String.format(
                                            Locale.ROOT,
                                            "%.1f s",
                                            fault.recovery().toMillis() / 1000.0))
                    .append('\n');
        }
        if (!evidence.isEmpty()) {
            out.append("\nEvidence (").append(evidence.size()).append(" lines, the first 60):\n");
            evidence.stream()
                    .limit(60)
                    .forEach(line -> out.append("- ").append(line).append('\n'));
        }
        return out.toString();
    }

    private static String machine() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        String load;
        try {
            load = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.UTF_8)
                    .split(" ")[0];
        } catch (IOException e) {
            load = String.format(Locale.ROOT, "%.2f", os.getSystemLoadAverage());
        }
        return String.format(
                Locale.ROOT,
                "%d cores, %.0f GiB, %s %s, Java %s, load %s at the end",
                Runtime.getRuntime().availableProcessors(),
                os.getTotalMemorySize() / (1024.0 * 1024 * 1024),
                System.getProperty("os.name"),
                System.getProperty("os.version"),
                Runtime.version(),
                load);
    }

    // ---------------------------------------------------------------------------------------------------- helpers

    private static Map<String, Integer> orderedQuotas() {
        Map<String, Integer> quotas = new LinkedHashMap<>();
        quotas.put("chaos-a", 8);
        quotas.put("chaos-b", 6);
        quotas.put("chaos-c", 6);
        return Collections.unmodifiableMap(quotas);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
