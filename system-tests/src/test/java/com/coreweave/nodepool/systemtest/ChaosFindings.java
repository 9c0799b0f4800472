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
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.TopicProbe;
import com.coreweave.nodepool.testing.TopicProbe.Tail;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the fault harness finds once the load has stopped and the stack is quiet, recomputed from the topics
 * (read_committed) and counted into the {@link FaultTable}: requests lost or decided twice, poison records missing from
 * a dead-letter topic or there twice, the ledgers' invariants ({@link Invariants}: oversold, nodes duplicated, and the
 * rest as notes) and statuses that differ from their facts ({@link StatusRecomputation}). A finding is counted on the
 * row of the fault during which its request was sent, or for a pool (or org) the last request that touched it.
 */
final class ChaosFindings {

    private static final Duration QUIET = Duration.ofSeconds(5);
    private static final Duration READ = Duration.ofSeconds(60);
    private static final Pattern POOL_OR_ORG = Pattern.compile("(chaos-[a-z]+)(/[a-z0-9-]+)?");

    private final Stack stack;
    private final Duration settle;
    private final List<ChaosLoad.Sent> probes;
    private final List<String> evidence;

    /** {@code probes}: the recovery probes' pools, as requests; {@code evidence}: where details of findings go. */
    ChaosFindings(Stack stack, Duration settle, List<ChaosLoad.Sent> probes, List<String> evidence) {
        this.stack = stack;
        this.settle = settle;
        this.probes = probes;
        this.evidence = evidence;
    }

    FaultTable check(ChaosLoad load, List<FaultTable.Injected> injected) {
        FaultTable table = new FaultTable(injected);
        String bootstrap = stack.bootstrapServers();
        Predicate<String> chaos = key -> key.startsWith("chaos-");
        try (var decided = Tail.of(bootstrap, Topics.NODEPOOL_REQUEST_DECIDED.name(), RequestDecided.class, chaos);
                var accepted = Tail.of(bootstrap, Topics.NODEPOOL_ACCEPTED.name(), NodePoolAccepted.class, chaos);
                var quota = Invariants.quotaDecisions(bootstrap, chaos);
                var capacity = Tail.of(bootstrap, Topics.CAPACITY_CHECKED.name(), CapacityChecked.class, chaos);
                var nodes = Tail.of(bootstrap, Topics.NODEPOOL_NODES_CHANGED.name(), NodeFact.class, chaos);
                var status = Tail.of(bootstrap, Topics.NODEPOOL_STATUS.name(), NodePool.class, chaos)) {
            List<Tail<?>> logs = List.of(decided, accepted, quota, capacity, nodes, status);
            List<String> ids = load.acks.stream()
                    .map(ChaosLoad.Ack::requestId)
                    .filter(id -> id != null)
                    .toList();
            Settling settling = new Settling(ids, logs, decided, accepted, quota, capacity, status, QUIET, READ);
            long settleStart = System.nanoTime();
            try {
                await().atMost(settle)
                        .pollInSameThread()
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofSeconds(2))
                        .until(settling::settled);
                table.note(String.format(
                        Locale.ROOT,
                        "The stack was quiet %.0f s after the load stopped.",
                        (System.nanoTime() - settleStart) / 1e9));
            } catch (ConditionTimeoutException e) {
                List<String> why = settling.reasons();
                table.note("The stack was NOT quiet " + settle.toSeconds() + " s after the load stopped (" + why.size()
                        + " reasons, e.g. " + why.subList(0, Math.min(5, why.size())) + "); checked anyway.");
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

    /**
     * Every acknowledged request decided exactly once (by its id, or by the resourceVersion the answer carried). A
     * client that retries with its Idempotency-Key (after a timeout, or on another instance) is given the first answer
     * again, a second record with the same outcome and version: that is a replay, not a second decision.
     */
    private void requests(ChaosLoad load, Tail<RequestDecided> decided, FaultTable table) {
        Map<String, Set<String>> answers = new HashMap<>();
        Map<String, Set<String>> versions = new HashMap<>();
        int replays = 0;
        for (var r : decided.all()) {
            RequestDecided d = r.value();
            if (d != null) {
                String answer = d.outcome() + " "
                        + (d.nodePool() == null ? "-" : d.nodePool().metadata().resourceVersion());
                if (!answers.computeIfAbsent(d.requestId(), id -> new HashSet<>())
                        .add(answer)) {
                    replays++;
                }
                if (d.nodePool() != null && d.outcome() != RequestDecided.Outcome.REJECTED) {
                    versions.computeIfAbsent(r.key(), k -> new HashSet<>())
                            .add(d.nodePool().metadata().resourceVersion());
                }
            }
        }
        for (ChaosLoad.Ack ack : load.acks) {
            FaultTable.Row row = table.at(ack.at());
            row.acknowledged++;
            if (ack.requestId() != null) {
                int n = answers.getOrDefault(ack.requestId(), Set.of()).size();
                if (n != 1) {
                    evidence.add("request " + ack.requestId() + " of " + ack.key() + ", acknowledged at " + ack.at()
                            + ", is " + "decided " + n + " times");
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
        if (replays > 0) {
            table.note(replays + " decisions were the first answer given again to a client that retried with its"
                    + " Idempotency-Key (the same outcome and resourceVersion): replays, not counted as duplicates.");
        }
    }

    /** Every poison record in the dead-letter topic of each service that consumes its topic, exactly once. */
    private void poison(ChaosLoad load, FaultTable table) {
        Map<Service, Set<String>> consumed = ConsumedTopics.of(stack.bootstrapServers());
        Map<String, List<TopicProbe.Read>> deadLetters = new HashMap<>();
        int[] checks = new int[1];
        try (TopicProbe kafka = new TopicProbe(stack.bootstrapServers())) {
            for (ChaosLoad.Poison p : load.poison) {
                consumed.forEach((service, topics) -> {
                    if (!topics.contains(p.topic())) {
                        return;
                    }
                    checks[0]++;
                    String dlq = ConsumedTopics.deadLetters(p.topic(), service);
                    long found = deadLetters.computeIfAbsent(dlq, kafka::readAll).stream()
                            .filter(r ->
                                    p.key().equals(r.key()) && service.module().equals(r.header(DeadLetters.SERVICE)))
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
     * published status against its facts ({@link StatusRecomputation}); each finding is counted on the row of the last
     * request that touched the pool (or org) it names.
     */
    private void ledgers(
            FaultTable table,
            Tail<NodePoolAccepted> accepted,
            Tail<QuotaChecked> quota,
            Tail<CapacityChecked> capacity,
            Tail<NodeFact> nodes,
            Tail<NodePool> status,
            ChaosLoad load) {
        Map<String, Instant> lastTouch = new HashMap<>();
        List<ChaosLoad.Sent> touches = new ArrayList<>(load.sent);
        touches.addAll(probes);
        for (ChaosLoad.Sent s : touches) {
            lastTouch.merge(s.key(), s.at(), (a, b) -> a.isAfter(b) ? a : b);
            lastTouch.merge(s.key().substring(0, s.key().indexOf('/')), s.at(), (a, b) -> a.isAfter(b) ? a : b);
        }
        var quotas =
                SystemStack.admin(stack, Service.QUOTA).get("/admin/quotas").body();
        for (Invariants.Setup ledger : List.of(ChaosRun.LOAD, ChaosRun.PROBES)) {
            Predicate<String> ours =
                    key -> ledger.quotas().keySet().stream().anyMatch(org -> key.startsWith(org + "/"));
            String type = ledger.instanceType();
            Invariants invariants = new Invariants(
                    ledger,
                    capacity.partitions(ours),
                    quota.partitions(ours),
                    nodes.partitions(ours),
                    accepted.partitions(ours),
                    status.partitions(ours));
            var fleetView = SystemStack.admin(stack, Service.CAPACITY)
                    .get("/admin/fleet/" + ledger.zone() + "/" + type)
                    .body();
            List<String> oversold = new ArrayList<>();
            oversold.addAll(invariants.ledgerReplay());
            oversold.addAll(invariants.machineIntervals());
            oversold.addAll(invariants.quotaRecords());
            oversold.addAll(invariants.finalQuota(quotas));
            oversold.addAll(invariants.quotaBindsHoldings().stream()
                    .filter(v -> !v.startsWith("history of"))
                    .toList());
            count("oversold in " + type, oversold, lastTouch, table, (row, n) -> row.oversold += n);
            count(
                    "nodes duplicated in " + type,
                    invariants.nodeLifetimes(),
                    lastTouch,
                    table,
                    (row, n) -> row.duplicated += n);
            var held = Invariants.live(capacity.partitions(ours)).values();
            table.note(String.format(
                    Locale.ROOT,
                    "Ledger %s/%s (%d machines): %d grants over the run, %d ledger states "
                            + "replayed; at the end %d pools hold %d machines and %d nodes are queued.",
                    ledger.zone(),
                    type,
                    ledger.fleetSize(),
                    invariants.lives().size(),
                    invariants.replayedStates(),
                    held.size(),
                    held.stream()
                            .mapToInt(c -> c.grants() == null ? 0 : c.grants().size())
                            .sum(),
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
        }
        count(
                "status mismatches",
                StatusRecomputation.mismatches(accepted.partitions(), nodes.partitions(), status.partitions()),
                lastTouch,
                table,
                (row, n) -> row.mismatches += n);
    }

    private interface Counter {
        void add(FaultTable.Row row, int n);
    }

    private static final Pattern MORE = Pattern.compile("\\.\\.\\. and (\\d+) more");

    /** Counts each finding on the row of the last request that touched what it names; keeps some as evidence. */
    private void count(
            String what, List<String> found, Map<String, Instant> lastTouch, FaultTable table, Counter counter) {
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
}
