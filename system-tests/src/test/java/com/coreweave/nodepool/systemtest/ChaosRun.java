package com.coreweave.nodepool.systemtest;

import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.systemtest.harness.KafkaProbe;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The fault harness ({@code ./stack chaos}, and one round of it in {@link ChaosIT}): runs {@link ChaosLoad} against
 * the stack while it injects faults one at a time — kill -9 of each service (then a restart), kill -9 of the broker
 * (then a restart on the same data), SIGSTOP of a service for longer than its session timeout (then SIGCONT) — and
 * times each recovery: from the fault until every service is ready and a pool created after the fault reaches
 * TargetMet. Then it stops the load, waits until the stack is quiet, recomputes the invariants from the topics
 * (read_committed) and fills the {@link FaultTable}.
 *
 * <p>The load's three orgs share one scarce ledger ({@value #ZONE} / {@value #TYPE}: {@value #FLEET} machines,
 * quotas of 8, 6 and 6), so requests go over quota and queue; the recovery probes use a ledger of their own.
 */
public final class ChaosRun {

  static final String ZONE = "US-CENTRAL-07A";
  static final String TYPE = "gd-8xl40s-i128";
  static final int FLEET = 14;
  static final Map<String, Integer> QUOTAS = orderedQuotas();
  static final String PROBE_ORG = "chaos-probe";
  static final String PROBE_TYPE = "gd-8xb200ib-i128";
  static final int PROBE_FLEET = 6;
  private static final Duration QUIET = Duration.ofSeconds(5);
  private static final Duration READ = Duration.ofSeconds(60);
  private static final Pattern POOL_OR_ORG = Pattern.compile("(chaos-[a-z]+)(/[a-z0-9-]+)?");
  private static final Logger LOG = Logger.getLogger(ChaosRun.class.getName());

  /** How long and how hard: {@code -Dchaos.<name>=<value>} (docs/reliability.md). */
  record Settings(int rounds, Duration pause, Duration warmup, Duration calm, Duration recoveryTimeout,
                  Duration settle, long seed) {

    static Settings of(int defaultRounds) {
      return new Settings(Integer.getInteger("chaos.rounds", defaultRounds), seconds("chaos.pause-seconds", 15),
          seconds("chaos.warmup-seconds", 15), seconds("chaos.calm-seconds", 5),
          seconds("chaos.recovery-timeout-seconds", 180), seconds("chaos.settle-seconds", 180),
          Long.getLong("chaos.seed", 20261123L));
    }

    private static Duration seconds(String property, int fallback) {
      return Duration.ofSeconds(Integer.getInteger(property, fallback));
    }
  }

  /** One fault to inject: on a service, or on the broker ({@code service} null); kill -9 unless {@code pause}. */
  private record Fault(String row, Service service, boolean pause) {
  }

  private final Stack stack;
  private final Settings settings;
  private final List<ChaosLoad.Sent> probes = new ArrayList<>();
  private final List<String> evidence = new ArrayList<>();

  ChaosRun(Stack stack, Settings settings) {
    this.stack = stack;
    this.settings = settings;
  }

  public static void main(String[] args) {
    Settings settings = Settings.of(3);
    int status;
    long started = System.nanoTime();
    try (Stack stack = SystemStack.configured().build().start()) {
      ChaosRun chaos = new ChaosRun(stack, settings);
      FaultTable table = chaos.run();
      String report = chaos.report(table, Duration.ofNanos(System.nanoTime() - started));
      System.out.println(report);
      Path out = Path.of(System.getProperty("chaos.output-dir", "target"))
          .resolve("chaos-" + Instant.now().truncatedTo(ChronoUnit.SECONDS).toString().replace(":", "") + ".md");
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
    QUOTAS.forEach((org, max) -> SystemStack.quota(stack, org, ZONE, TYPE, max));
    SystemStack.quota(stack, PROBE_ORG, ZONE, PROBE_TYPE, PROBE_FLEET);
    SystemStack.fleet(stack, ZONE, TYPE, FLEET);
    SystemStack.fleet(stack, ZONE, PROBE_TYPE, PROBE_FLEET);
    List<FaultTable.Injected> injected = new ArrayList<>();
    ChaosLoad load = new ChaosLoad(stack, ZONE, TYPE, List.copyOf(QUOTAS.keySet()), settings.seed());
    try (load) {
      load.start();
      sleep(settings.warmup());
      for (int round = 1; round <= settings.rounds(); round++) {
        for (Fault fault : faults(round)) {
          injected.add(inject(fault, round));
          sleep(settings.calm());
        }
      }
    }
    LOG.info(() -> "load stopped: " + load.acks.size() + " requests acknowledged, " + load.unanswered.get()
        + " calls unanswered, " + load.poison.size() + " poison records");
    return check(load, injected);
  }

  private List<Fault> faults(int round) {
    List<Fault> faults = new ArrayList<>();
    for (Service service : Service.values()) {
      faults.add(new Fault("kill -9 " + service.module(), service, false));
    }
    faults.add(new Fault("kill -9 broker", null, false));
    Service paused = Service.values()[(round - 1) % Service.values().length];
    faults.add(new Fault("SIGSTOP " + settings.pause().toSeconds() + " s, then SIGCONT (a service per round)",
        paused, true));
    return faults;
  }

  // ----------------------------------------------------------------------------------------------------- faults

  private FaultTable.Injected inject(Fault fault, int round) {
    Instant at = Instant.now();
    long start = System.nanoTime();
    long deadline = start + settings.recoveryTimeout().toNanos();
    String target = fault.service() == null ? "the broker" : fault.service().module();
    String detail = (fault.pause() ? "SIGSTOP " : "kill -9 ") + target;
    LOG.info(() -> "round " + round + ": " + detail);
    CompletableFuture<Long> probe = null;
    try {
      if (fault.service() == null) {
        stack.kill9Broker();
        probe = probe(at, deadline);
        stack.restartBroker();
      } else if (fault.pause()) {
        stack.pause(fault.service());
        probe = probe(at, deadline);
        sleep(settings.pause());
        stack.resume(fault.service());
      } else {
        stack.kill9(fault.service());
        probe = probe(at, deadline);
        stack.restart(fault.service());
      }
    } catch (RuntimeException e) {
      evidence.add("round " + round + ", " + detail + ": " + e.getMessage());
    }
    long ready = allReady(deadline);
    long targetMet = probe == null ? -1 : probe.join();
    Duration recovery = ready < 0 || targetMet < 0 ? null : Duration.ofNanos(Math.max(ready, targetMet) - start);
    LOG.info(() -> "round " + round + ": " + detail + ": " + (recovery == null ? "NOT recovered within "
        + settings.recoveryTimeout().toSeconds() + " s" : "recovered in " + recovery.toMillis() + " ms"));
    if (ready < 0) {
      restartWhatIsDown(round, detail);
    }
    return new FaultTable.Injected(fault.row(), detail, at, recovery);
  }

  /** A pool created once the fault is in place, on its way to TargetMet (see {@link #newPoolTargetMet}). */
  private CompletableFuture<Long> probe(Instant faultAt, long deadline) {
    return CompletableFuture.supplyAsync(() -> newPoolTargetMet(faultAt, deadline),
        task -> Thread.ofPlatform().name("chaos-probe").start(task));
  }

  /** When every service answered ready (nanoTime), or -1 if one did not by the deadline. */
  private long allReady(long deadline) {
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (Service service : Service.values()) {
        all &= stack.ready(service);
      }
      if (all) {
        return System.nanoTime();
      }
      sleep(Duration.ofMillis(250));
    }
    return -1;
  }

  private void restartWhatIsDown(int round, String detail) {
    for (Service service : Service.values()) {
      if (!stack.ready(service)) {
        evidence.add("round " + round + ", " + detail + ": " + service.module() + " was not ready after "
            + settings.recoveryTimeout().toSeconds() + " s; restarted it to go on");
        try {
          stack.restart(service);
        } catch (RuntimeException e) {
          evidence.add(service.module() + " did not start again: " + e.getMessage());
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
    Api api = new Api(stack.url(Service.API), SystemStack.token(PROBE_ORG));
    String body = """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","region":"%s","targetNodes":1}}""".formatted(name, PROBE_TYPE, ZONE);
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

  // ----------------------------------------------------------------------------------------------------- checks

  private FaultTable check(ChaosLoad load, List<FaultTable.Injected> injected) {
    FaultTable table = new FaultTable(injected);
    String bootstrap = stack.bootstrapServers();
    Predicate<String> chaos = key -> key.startsWith("chaos-");
    try (var decided = new TopicLog<>(bootstrap, Topics.NODEPOOL_REQUEST_DECIDED.name(), RequestDecided.class, chaos);
         var accepted = new TopicLog<>(bootstrap, Topics.NODEPOOL_ACCEPTED.name(), NodePoolAccepted.class, chaos);
         var quota = new TopicLog<>(bootstrap, Topics.QUOTA_CHECKED.name(), QuotaChecked.class, chaos);
         var capacity = new TopicLog<>(bootstrap, Topics.CAPACITY_CHECKED.name(), CapacityChecked.class, chaos);
         var nodes = new TopicLog<>(bootstrap, Topics.NODEPOOL_NODES_CHANGED.name(), NodeFact.class, chaos);
         var status = new TopicLog<>(bootstrap, Topics.NODEPOOL_STATUS.name(), NodePool.class, chaos)) {
      List<TopicLog<?>> logs = List.of(decided, accepted, quota, capacity, nodes, status);
      List<String> ids = load.acks.stream().map(ChaosLoad.Ack::requestId).filter(id -> id != null).toList();
      Settling settling = new Settling(ids, logs, decided, accepted, quota, capacity, status, QUIET, READ);
      long settleStart = System.nanoTime();
      try {
        await().atMost(settings.settle()).pollInSameThread().pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofSeconds(2)).until(settling::settled);
        table.note(String.format(Locale.ROOT, "The stack was quiet %.0f s after the load stopped.",
            (System.nanoTime() - settleStart) / 1e9));
      } catch (ConditionTimeoutException e) {
        List<String> why = settling.reasons();
        table.note("The stack was NOT quiet " + settings.settle().toSeconds() + " s after the load stopped ("
            + why.size() + " reasons, e.g. " + why.subList(0, Math.min(5, why.size())) + "); checked anyway.");
      }
      logs.forEach(log -> log.catchUp(READ));
      requests(load, decided, table);
      poison(load, table);
      ledgers(table, accepted, quota, capacity, nodes, status, load);
    }
    table.note(load.unanswered.get() + " calls of the load got no answer (a service or the broker was down); "
        + "they are not acknowledged, so not counted.");
    return table;
  }

  /** Every acknowledged request decided exactly once (by its id, or by the resourceVersion the answer carried). */
  private void requests(ChaosLoad load, TopicLog<RequestDecided> decided, FaultTable table) {
    Map<String, Integer> decisions = new HashMap<>();
    Map<String, Set<String>> versions = new HashMap<>();
    for (var r : decided.all()) {
      RequestDecided d = r.value();
      if (d != null) {
        decisions.merge(d.requestId(), 1, Integer::sum);
        if (d.nodePool() != null && d.outcome() != RequestDecided.Outcome.REJECTED) {
          versions.computeIfAbsent(r.key(), k -> new java.util.HashSet<>())
              .add(d.nodePool().metadata().resourceVersion());
        }
      }
    }
    for (ChaosLoad.Ack ack : load.acks) {
      FaultTable.Row row = table.at(ack.at());
      row.acknowledged++;
      if (ack.requestId() != null) {
        int n = decisions.getOrDefault(ack.requestId(), 0);
        if (n != 1) {
          evidence.add("request " + ack.requestId() + " of " + ack.key() + ", acknowledged at " + ack.at() + ", is "
              + "decided " + n + " times");
          if (n == 0) {
            row.lost++;
          } else {
            row.duplicated++;
          }
        }
      } else if (!versions.getOrDefault(ack.key(), Set.of()).contains(ack.resourceVersion())) {
        evidence.add("the REST write of " + ack.key() + " answered at " + ack.at() + " with resourceVersion "
            + ack.resourceVersion() + " has no committed decision");
        row.lost++;
      }
    }
  }

  /** Every poison record in the dead-letter topic of each service that consumes its topic, exactly once. */
  private void poison(ChaosLoad load, FaultTable table) {
    Map<Service, Set<String>> consumed = ConsumedTopics.of(stack.bootstrapServers());
    Map<String, List<ConsumerRecord<String, String>>> deadLetters = new HashMap<>();
    int[] checks = new int[1];
    try (KafkaProbe kafka = new KafkaProbe(stack.bootstrapServers())) {
      for (ChaosLoad.Poison p : load.poison) {
        consumed.forEach((service, topics) -> {
          if (!topics.contains(p.topic())) {
            return;
          }
          checks[0]++;
          String dlq = ConsumedTopics.deadLetters(p.topic(), service);
          long found = deadLetters.computeIfAbsent(dlq, kafka::readAll).stream()
              .filter(r -> p.key().equals(r.key())
                  && service.module().equals(KafkaProbe.header(r, DeadLetters.SERVICE)))
              .count();
          if (found != 1) {
            evidence.add("poison " + p.marker() + " on " + p.topic() + "-" + p.partition() + " is " + found
                + " times in " + dlq + " (from " + service.module() + ")");
            FaultTable.Row row = table.at(p.at());
            if (found == 0) {
              row.lost++;
            } else {
              row.duplicated++;
            }
          }
        });
      }
    }
    table.note(load.poison.size() + " poison records (unreadable, or keyed by another pool than their value's) on "
        + "random partitions of nodepool-requested and node-activity-reported, looked for in the dead-letter topic of "
        + "each service that reads their topic: " + checks[0] + " look-ups.");
  }

  /**
   * The ledgers' invariants ({@link Invariants}) on the load's ledger and the probes' ledger, and every pool's
   * published status against its facts ({@link StatusRecomputation}); each finding is counted on the row of the
   * last request that touched the pool (or org) it names.
   */
  private void ledgers(FaultTable table, TopicLog<NodePoolAccepted> accepted, TopicLog<QuotaChecked> quota,
                       TopicLog<CapacityChecked> capacity, TopicLog<NodeFact> nodes, TopicLog<NodePool> status,
                       ChaosLoad load) {
    Map<String, Instant> lastTouch = new HashMap<>();
    List<ChaosLoad.Sent> touches = new ArrayList<>(load.sent);
    touches.addAll(probes);
    for (ChaosLoad.Sent s : touches) {
      lastTouch.merge(s.key(), s.at(), (a, b) -> a.isAfter(b) ? a : b);
      lastTouch.merge(s.key().substring(0, s.key().indexOf('/')), s.at(), (a, b) -> a.isAfter(b) ? a : b);
    }
    var quotas = SystemStack.admin(stack, Service.QUOTA).get("/admin/quotas").body();
    Map<String, Map<String, Integer>> ledgers = new LinkedHashMap<>();
    ledgers.put(TYPE, QUOTAS);
    ledgers.put(PROBE_TYPE, Map.of(PROBE_ORG, PROBE_FLEET));
    ledgers.forEach((type, orgs) -> {
      Predicate<String> ours = key -> orgs.keySet().stream().anyMatch(org -> key.startsWith(org + "/"));
      int fleet = type.equals(TYPE) ? FLEET : PROBE_FLEET;
      Invariants invariants = new Invariants(new Invariants.Setup(ZONE, type, fleet, orgs),
          capacity.partitions(ours), quota.partitions(ours), nodes.partitions(ours), accepted.partitions(ours),
          status.partitions(ours));
      var fleetView = SystemStack.admin(stack, Service.CAPACITY).get("/admin/fleet/" + ZONE + "/" + type).body();
      List<String> oversold = new ArrayList<>();
      oversold.addAll(invariants.ledgerReplay());
      oversold.addAll(invariants.machineIntervals());
      oversold.addAll(invariants.quotaRecords());
      oversold.addAll(invariants.finalQuota(quotas));
      oversold.addAll(invariants.quotaBindsHoldings().stream().filter(v -> !v.startsWith("history of")).toList());
      count("oversold in " + type, oversold, lastTouch, table, (row, n) -> row.oversold += n);
      count("nodes duplicated in " + type, invariants.nodeLifetimes(), lastTouch, table,
          (row, n) -> row.duplicated += n);
      var held = Invariants.live(capacity.partitions(ours)).values();
      table.note(String.format(Locale.ROOT, "Ledger %s/%s (%d machines): %d grants over the run, %d ledger states "
              + "replayed; at the end %d pools hold %d machines and %d nodes are queued.", ZONE, type, fleet,
          invariants.lives().size(), invariants.replayedStates(), held.size(),
          held.stream().mapToInt(c -> c.grants() == null ? 0 : c.grants().size()).sum(),
          held.stream().mapToInt(CapacityChecked::queuedNodes).sum()));
      Map<String, List<String>> others = new LinkedHashMap<>();
      others.put("grant identity", invariants.grantIdentity());
      others.put("ledger order", invariants.ledgerOrder());
      others.put("grants end only by release", invariants.grantsEndOnlyByRelease());
      others.put("services agree on the pools", invariants.finalAgreement());
      others.put("capacity now", invariants.finalCapacity(fleetView));
      others.put("pools now", invariants.finalPools());
      others.put("every pool valid", invariants.validPools());
      others.forEach((what, found) -> {
        if (!found.isEmpty()) {
          table.note(found.size() + " finding(s) of " + what + " in " + type + ", e.g. " + found.get(0));
          found.stream().limit(10).forEach(v -> evidence.add(what + " in " + type + ": " + v));
        }
      });
    });
    count("status mismatches", StatusRecomputation.mismatches(accepted.partitions(), quota.partitions(),
        capacity.partitions(), nodes.partitions(), status.partitions()), lastTouch, table,
        (row, n) -> row.mismatches += n);
  }

  private interface Counter {
    void add(FaultTable.Row row, int n);
  }

  private static final Pattern MORE = Pattern.compile("\\.\\.\\. and (\\d+) more");

  /** Counts each finding on the row of the last request that touched what it names; keeps some as evidence. */
  private void count(String what, List<String> found, Map<String, Instant> lastTouch, FaultTable table,
                     Counter counter) {
    found.stream().limit(10).forEach(v -> evidence.add(what + ": " + v));
    for (String finding : found) {
      Matcher more = MORE.matcher(finding);
      if (more.matches()) {
        counter.add(table.at(null), Integer.parseInt(more.group(1)));
        continue;
      }
      Matcher named = POOL_OR_ORG.matcher(finding);
      Instant at = named.find() ? lastTouch.getOrDefault(named.group(), lastTouch.get(named.group(1))) : null;
      counter.add(table.at(at), 1);
    }
  }

  // ----------------------------------------------------------------------------------------------------- report

  String report(FaultTable table, Duration took) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "## ./stack chaos: %d round(s) of %d faults, %s%n%n", settings.rounds(),
        faults(1).size(), Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    out.append("Machine: ").append(machine()).append(". Commit: ")
        .append(System.getProperty("chaos.commit", "unknown")).append(String.format(Locale.ROOT,
            ". Took %.1f min (pause %d s, recovery deadline %d s).%n%n", took.toSeconds() / 60.0,
            settings.pause().toSeconds(), settings.recoveryTimeout().toSeconds()));
    out.append(table.markdown());
    out.append("\nFaults in order:\n");
    for (FaultTable.Injected fault : table.faults()) {
      out.append("- ").append(fault.at().truncatedTo(ChronoUnit.SECONDS)).append(' ').append(fault.detail())
          .append(": ").append(fault.recovery() == null ? "not recovered"
              : String.format(Locale.ROOT, "%.1f s", fault.recovery().toMillis() / 1000.0)).append('\n');
    }
    if (!evidence.isEmpty()) {
      out.append("\nEvidence (").append(evidence.size()).append(" lines, the first 60):\n");
      evidence.stream().limit(60).forEach(line -> out.append("- ").append(line).append('\n'));
    }
    return out.toString();
  }

  private static String machine() {
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    String load;
    try {
      load = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.UTF_8).split(" ")[0];
    } catch (IOException e) {
      load = String.format(Locale.ROOT, "%.2f", os.getSystemLoadAverage());
    }
    return String.format(Locale.ROOT, "%d cores, %.0f GiB, %s %s, Java %s, load %s at the end",
        Runtime.getRuntime().availableProcessors(), os.getTotalMemorySize() / (1024.0 * 1024 * 1024),
        System.getProperty("os.name"), System.getProperty("os.version"), Runtime.version(), load);
  }

  // ---------------------------------------------------------------------------------------------------- helpers

  private static Map<String, Integer> orderedQuotas() {
    Map<String, Integer> quotas = new LinkedHashMap<>();
    quotas.put("chaos-a", 8);
    quotas.put("chaos-b", 6);
    quotas.put("chaos-c", 6);
    return java.util.Collections.unmodifiableMap(quotas);
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
