package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.TopicProbe.Kept;
import com.coreweave.nodepool.testing.TopicProbe.Tail;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The quota and capacity invariants of issue 4, checked over the committed records of the topics (read_committed, each
 * partition in offset order) of the pools of one ledger ({@code zone × instanceType}) whose orgs only use that ledger.
 * A plain class: every method returns the violations it found (empty when the invariant holds), so one test can assert
 * each invariant on its own and report all the evidence.
 *
 * <p>What "at every moment" means here, and why the history checks are sound. The capacity ledger of one
 * {@code <zone>/<instanceType>} is a single writer: one Streams task applies one input at a time and, with each
 * exactly-once commit, writes the {@code capacity-checked} of every pool whose allocation changed in it (its last
 * state, listing what the pool holds at the commit), all stamped with one instant ({@code checkedAt}: that of the
 * commit's latest decision). The moments that exist are therefore the ledger's states after each commit (the only ones
 * a read_committed reader could see anyway). A reader cannot see them directly: each partition of
 * {@code capacity-checked} shows the ledger's records in ledger order, but records of different partitions are not
 * ordered with each other. So:
 *
 * <ul>
 *   <li>{@link #ledgerOrder()} checks that in each partition the ledger's {@code checkedAt} never goes back; then
 *       ordering all records by {@code checkedAt} (ties = one commit) is a linear order that agrees with every
 *       partition, i.e. the ledger's own order (assumption: the host's wall clock is not stepped back during the test;
 *       all services run on one host).
 *   <li>{@link #ledgerReplay()} replays the records in that order; after each commit it checks that no machine is in
 *       two pools and that no more machines are granted than the fleet has. The ledger writes every pool whose grants
 *       changed in the same commit, so after commit k the latest record of each pool is the ledger's allocation after
 *       k: the check sees the ledger's every state. A tombstone carries no instant, so it is applied as early as its
 *       partition allows: that can only remove grants from the view earlier than they were, never add one, so it can
 *       hide but never invent a violation. (A merge by arrival or by offsets alone would invent them: a machine
 *       released by pool A in partition 0 and granted to pool B in partition 1 in the same commit is in both pools for
 *       a moment of the reader's merged view.)
 *   <li>{@link #machineIntervals()} checks the same machine by machine, with the grant ids (they only grow in a ledger,
 *       so a machine's grants ordered by id are its allocations in time): each grant of a machine must end (its pool's
 *       record drops it, is a tombstone or names another incarnation) in the same commit as the next grant of that
 *       machine starts, or earlier, compared by the ledger's instants; within one commit offsets do not order the
 *       pools' records. A tombstone end has no instant: it is proven late only when a record of a later commit than the
 *       new grant precedes it in its partition, the one comparison that is sound for it.
 *   <li>{@link #grantsEndOnlyByRelease()} checks that the ledger never takes a grant back by itself: a grant dropped
 *       from a live pool of the same incarnation was released by a {@code NodeRemoved} naming that machine and grant
 *       id, written before the ledger dropped it.
 *   <li>{@link #nodeLifetimes()} checks the physical side: a machine is a node of one pool at a time: for the grants of
 *       a machine that became nodes (ordered by grant id), each node was removed ({@code NodeRemoved.at}) before the
 *       next was assigned ({@code NodeAssigned.at}); both are the provisioner's instants and the second is caused
 *       through the ledger by the first, so the order is real.
 * </ul>
 *
 * Quota decisions are read per pool off {@code capacity-demanded} ({@link #quotaDecisions}), where a pool's departure
 * is a tombstone. A decision is published only when it changes for its pool, not whenever the org's total does, so the
 * per-org sum cannot be replayed from them; but every record carries the ledger's own total ({@code usage}) at the
 * moment of the decision, so {@link #quotaRecords()} checks every record, and the final state is checked strictly.
 */
final class Invariants {

    /** The ledger under test and what the test configured. */
    record Setup(String zone, String instanceType, int fleetSize, Map<String, Integer> quotas) {}

    /** What the topics say of one grant: who held it, the record that first listed it and the one that ended it. */
    record GrantLife(
            long grantId,
            String machine,
            String key,
            String uid,
            Kept<CapacityChecked> first,
            Kept<CapacityChecked> end,
            End how) {}

    enum End {
        RELEASED,
        FORGOTTEN,
        REINCARNATED,
        HELD
    }

    private static final int SHOWN = 25;

    private final Setup setup;
    private final List<List<Kept<CapacityChecked>>> capacity;
    private final List<List<Kept<QuotaChecked>>> quota;
    private final List<List<Kept<NodeFact>>> nodes;
    private final List<List<Kept<NodePoolAccepted>>> accepted;
    private final List<List<Kept<NodePool>>> status;
    private final List<String> identityViolations = new ArrayList<>();
    private final List<GrantLife> lives;

    Invariants(
            Setup setup,
            List<List<Kept<CapacityChecked>>> capacity,
            List<List<Kept<QuotaChecked>>> quota,
            List<List<Kept<NodeFact>>> nodes,
            List<List<Kept<NodePoolAccepted>>> accepted,
            List<List<Kept<NodePool>>> status) {
        this.setup = setup;
        this.capacity = capacity;
        this.quota = quota;
        this.nodes = nodes;
        this.accepted = accepted;
        this.status = status;
        this.lives = grantLives();
    }

    List<GrantLife> lives() {
        return lives;
    }

    // ------------------------------------------------------------------------------------------ capacity, history

    /**
     * A grant id names one allocation: one machine, one pool incarnation, listed by that pool's records without a gap
     * (once dropped it never comes back); a record lists a machine and a grant id at most once; every record belongs to
     * this ledger.
     */
    List<String> grantIdentity() {
        List<String> found = new ArrayList<>(identityViolations);
        Map<Long, String> owner = new HashMap<>();
        for (Kept<CapacityChecked> r : flat(capacity)) {
            if (r.tombstone()) {
                continue;
            }
            CapacityChecked c = r.value();
            if (!r.key().equals(c.pool().org() + "/" + c.pool().pool())) {
                found.add(r.where() + " key " + r.key() + " names pool " + c.pool());
            }
            if (!setup.zone().equals(c.pool().zone())
                    || !setup.instanceType().equals(c.pool().instanceType())) {
                found.add(r.where() + " " + r.key() + " is of ledger "
                        + c.pool().zone() + "/" + c.pool().instanceType());
            }
            Set<String> machines = new HashSet<>();
            Set<Long> ids = new HashSet<>();
            for (Grant g : grants(c)) {
                if (!machines.add(g.machine()) || !ids.add(g.grantId())) {
                    found.add(r.where() + " " + r.key() + " lists machine " + g.machine() + " or grant " + g.grantId()
                            + " twice: " + c.grants());
                }
                String who =
                        g.machine() + " to " + r.key() + " (uid " + c.pool().uid() + ")";
                String before = owner.putIfAbsent(g.grantId(), who);
                if (before != null && !before.equals(who)) {
                    found.add("grant id " + g.grantId() + " names two allocations: " + before + " and " + who + " ("
                            + r.where() + ")");
                }
            }
        }
        return shown(found);
    }

    /** In each partition the ledger's instants never go back (what makes {@link #ledgerReplay()} sound). */
    List<String> ledgerOrder() {
        List<String> found = new ArrayList<>();
        for (List<Kept<CapacityChecked>> partition : capacity) {
            Kept<CapacityChecked> previous = null;
            for (Kept<CapacityChecked> r : partition) {
                if (r.tombstone()) {
                    continue;
                }
                if (previous != null
                        && r.value().checkedAt().isBefore(previous.value().checkedAt())) {
                    found.add(r.where() + " " + r.key() + " checkedAt "
                            + r.value().checkedAt() + " is before " + previous.where() + " " + previous.key()
                            + " checkedAt " + previous.value().checkedAt());
                }
                previous = r;
            }
        }
        return shown(found);
    }

    /**
     * Replays the ledger's records in its own order (see the class comment) and checks after every commit: no machine
     * is granted to two pools, and at most the fleet's machines are granted. {@link #replayedStates()} then says how
     * many ledger states were checked.
     */
    List<String> ledgerReplay() {
        List<String> found = new ArrayList<>();
        int[] head = new int[capacity.size()];
        Map<String, CapacityChecked> view = new TreeMap<>();
        replayed = 0;
        while (true) {
            boolean applied = true;
            while (applied) {
                applied = false;
                for (int p = 0; p < capacity.size(); p++) {
                    if (head[p] < capacity.get(p).size()
                            && capacity.get(p).get(head[p]).tombstone()) {
                        view.remove(capacity.get(p).get(head[p]).key());
                        head[p]++;
                        applied = true;
                    }
                }
            }
            Instant t = null;
            for (int p = 0; p < capacity.size(); p++) {
                if (head[p] < capacity.get(p).size()) {
                    Instant at = capacity.get(p).get(head[p]).value().checkedAt();
                    t = t == null || at.isBefore(t) ? at : t;
                }
            }
            if (t == null) {
                break;
            }
            List<String> step = new ArrayList<>();
            for (int p = 0; p < capacity.size(); p++) {
                List<Kept<CapacityChecked>> partition = capacity.get(p);
                while (head[p] < partition.size()
                        && (partition.get(head[p]).tombstone()
                                || partition.get(head[p]).value().checkedAt().equals(t))) {
                    Kept<CapacityChecked> r = partition.get(head[p]);
                    if (r.tombstone()) {
                        view.remove(r.key());
                    } else {
                        view.put(r.key(), r.value());
                        step.add(r.where());
                    }
                    head[p]++;
                }
            }
            replayed++;
            Map<String, List<String>> holders = new TreeMap<>();
            int granted = 0;
            for (var e : view.entrySet()) {
                for (Grant g : grants(e.getValue())) {
                    holders.computeIfAbsent(g.machine(), m -> new ArrayList<>()).add(e.getKey() + "#" + g.grantId());
                    granted++;
                }
            }
            for (var holder : holders.entrySet()) {
                if (holder.getValue().size() > 1) {
                    found.add("at " + t + " (records " + step + ") machine " + holder.getKey() + " is granted to "
                            + holder.getValue());
                }
            }
            if (granted > setup.fleetSize()) {
                found.add("at " + t + " (records " + step + ") " + granted + " machines are granted, the fleet has "
                        + setup.fleetSize());
            }
        }
        return shown(found);
    }

    private int replayed;

    /** How many ledger states {@link #ledgerReplay()} checked. */
    int replayedStates() {
        return replayed;
    }

    /**
     * For every machine, its grants ordered by grant id: each one has ended (its pool's record dropped it, or the pool
     * was tombstoned or re-created) no later than the next one started, and the next one started no earlier than it.
     */
    List<String> machineIntervals() {
        List<String> found = new ArrayList<>();
        Map<String, List<GrantLife>> byMachine = new TreeMap<>();
        lives.forEach(l ->
                byMachine.computeIfAbsent(l.machine(), m -> new ArrayList<>()).add(l));
        byMachine.forEach((machine, grants) -> {
            grants.sort(Comparator.comparingLong(GrantLife::grantId));
            for (int i = 0; i + 1 < grants.size(); i++) {
                GrantLife a = grants.get(i);
                GrantLife b = grants.get(i + 1);
                if (!notAfter(a.first(), b.first())) {
                    found.add(machine + ": grant " + b.grantId() + " to " + b.key() + " ("
                            + b.first().where() + ") was listed" + " before the older grant " + a.grantId() + " to "
                            + a.key() + " (" + a.first().where() + ")");
                }
                if (a.end() == null) {
                    found.add(machine + ": grant " + b.grantId() + " to " + b.key() + " ("
                            + b.first().where() + ") while " + a.key() + " still holds it under grant " + a.grantId()
                            + " (never released)");
                } else if (!endedBefore(a.end(), b.first())) {
                    found.add(machine + ": grant " + b.grantId() + " to " + b.key() + " ("
                            + b.first().where() + ", "
                            + b.first().value().checkedAt() + ") started before grant " + a.grantId() + " of " + a.key()
                            + " ended (" + a.end().where() + ", " + describe(a.end()) + ")");
                }
            }
        });
        return shown(found);
    }

    /**
     * The ledger never takes a grant back by itself: every grant dropped from a live pool of the same incarnation was
     * released by the provisioner's {@code NodeRemoved} naming that machine and grant id, written before.
     */
    List<String> grantsEndOnlyByRelease() {
        Map<Long, List<NodeFact.NodeRemoved>> removed = removedByGrant();
        List<String> found = new ArrayList<>();
        for (GrantLife life : lives) {
            if (life.how() != End.RELEASED) {
                continue;
            }
            List<NodeFact.NodeRemoved> releases = removed.getOrDefault(life.grantId(), List.of()).stream()
                    .filter(n -> n.grant().machine().equals(life.machine())
                            && n.pool().uid().equals(life.uid())
                            && (n.pool().org() + "/" + n.pool().pool()).equals(life.key()))
                    .toList();
            Instant droppedAt = life.end().value().checkedAt();
            if (releases.isEmpty()) {
                found.add("grant " + life.grantId() + " of " + life.machine() + " to " + life.key() + " was dropped at "
                        + life.end().where() + " (" + droppedAt + ") but no NodeRemoved names it");
            } else if (releases.stream().noneMatch(n -> !n.at().isAfter(droppedAt))) {
                found.add("grant " + life.grantId() + " of " + life.machine() + " to " + life.key() + " was dropped at "
                        + life.end().where() + " (" + droppedAt + ") before its NodeRemoved ("
                        + releases.get(0).at() + ")");
            }
        }
        return shown(found);
    }

    /**
     * Nodes: every assignment runs on a grant the ledger gave that pool incarnation, each grant becomes a node at most
     * once, and a machine is a node of one pool at a time (each node removed before the machine's next grant became a
     * node). An assignment is a {@code NodeAssigned}, or the registration (or failed one) of a grant that is not a node
     * yet: a node assigned and registered in one transaction is written as its registration alone.
     */
    List<String> nodeLifetimes() {
        List<String> found = new ArrayList<>();
        Map<Long, GrantLife> byId = new HashMap<>();
        lives.forEach(l -> byId.put(l.grantId(), l));
        Map<Long, List<NodeFact.AboutNode>> assigned = new TreeMap<>();
        Set<Long> nodesNow = new HashSet<>();
        for (Kept<NodeFact> r : flat(nodes)) {
            if (r.value() instanceof NodeFact.NodeRemoved removed && removed.grant() != null) {
                nodesNow.remove(removed.grant().grantId());
            }
            boolean assignment = r.value() instanceof NodeFact.NodeAssigned
                    || (r.value() instanceof NodeFact.NodeRegistered
                                    || r.value() instanceof NodeFact.NodeRegistrationFailed)
                            && !nodesNow.contains(
                                    ((NodeFact.AboutNode) r.value()).grant().grantId());
            if (assignment && r.value() instanceof NodeFact.AboutNode a) {
                nodesNow.add(a.grant().grantId());
                assigned.computeIfAbsent(a.grant().grantId(), id -> new ArrayList<>())
                        .add(a);
                GrantLife life = byId.get(a.grant().grantId());
                String key = a.pool().org() + "/" + a.pool().pool();
                if (life == null
                        || !life.machine().equals(a.grant().machine())
                        || !life.key().equals(key)
                        || !life.uid().equals(a.pool().uid())
                        || !a.node().name().equals(a.grant().machine())) {
                    found.add(r.where() + " node " + a.node().name() + " of " + key + " runs on grant " + a.grant()
                            + " which capacity-checked never gave that pool incarnation (" + life + ")");
                }
            }
        }
        assigned.forEach((id, list) -> {
            if (list.size() > 1) {
                found.add("grant " + id + " became a node " + list.size() + " times");
            }
        });
        Map<Long, List<NodeFact.NodeRemoved>> removed = removedByGrant();
        Map<String, List<NodeFact.AboutNode>> byMachine = new TreeMap<>();
        assigned.values()
                .forEach(list -> byMachine
                        .computeIfAbsent(list.get(0).grant().machine(), m -> new ArrayList<>())
                        .add(list.get(0)));
        byMachine.forEach((machine, list) -> {
            list.sort(Comparator.comparingLong(a -> a.grant().grantId()));
            for (int i = 0; i + 1 < list.size(); i++) {
                NodeFact.AboutNode a = list.get(i);
                NodeFact.AboutNode b = list.get(i + 1);
                Instant gone = removed.getOrDefault(a.grant().grantId(), List.of()).stream()
                        .map(NodeFact::at)
                        .min(Comparator.naturalOrder())
                        .orElse(null);
                if (gone == null || gone.isAfter(b.at())) {
                    found.add("machine " + machine + " became a node of "
                            + b.pool().org() + "/" + b.pool().pool() + " at "
                            + b.at() + " (grant " + b.grant().grantId() + ") while still a node of "
                            + a.pool().org() + "/"
                            + a.pool().pool() + " (grant " + a.grant().grantId() + ", removed " + gone + ")");
                }
            }
        });
        return shown(found);
    }

    // --------------------------------------------------------------------------------------------- quota, history

    /**
     * Every quota decision ever committed: a pool is admitted at most its request and never a negative count; a pool
     * that is deleting or not checked is admitted nothing; and where a quota is set, it is the one configured and the
     * org's admitted total at that decision ({@code usage}, computed by the single writer of the org's ledger) includes
     * the pool and stays within it.
     */
    List<String> quotaRecords() {
        List<String> found = new ArrayList<>();
        for (Kept<QuotaChecked> r : flat(quota)) {
            if (r.tombstone()) {
                continue;
            }
            QuotaChecked q = r.value();
            String at = r.where() + " " + r.key() + " (gen " + q.pool().generation() + ", " + q.reason() + "): ";
            if (q.admittedNodes() < 0 || q.admittedNodes() > q.requestedNodes()) {
                found.add(at + "admitted " + q.admittedNodes() + " of a request of " + q.requestedNodes());
            }
            if ((q.deleting() || q.reason() == null) && q.admittedNodes() != 0) {
                found.add(at + "deleting or unchecked but admitted " + q.admittedNodes());
            }
            if (q.limit() != null) {
                Integer configured = setup.quotas().get(q.pool().org());
                if (!q.limit().equals(configured)) {
                    found.add(at + "limit " + q.limit() + " but the org's quota is " + configured);
                }
                if (q.usage() > q.limit()) {
                    found.add(at + "the org's admitted total " + q.usage() + " exceeds its quota " + q.limit());
                }
                if (q.admittedNodes() > q.usage()) {
                    found.add(at + "admitted " + q.admittedNodes() + " but the org's total is only " + q.usage());
                }
            }
        }
        return shown(found);
    }

    // ----------------------------------------------------------------------------------------------- final state

    /** Latest record per key of a compacted topic (tombstones included as null values). */
    static <T> Map<String, T> latest(List<List<Kept<T>>> partitions) {
        Map<String, T> latest = new TreeMap<>();
        for (List<Kept<T>> partition : partitions) {
            for (Kept<T> r : partition) {
                latest.put(r.key(), r.value());
            }
        }
        return latest;
    }

    static <T> Map<String, T> live(List<List<Kept<T>>> partitions) {
        Map<String, T> live = new TreeMap<>();
        latest(partitions).forEach((k, v) -> {
            if (v != null) {
                live.put(k, v);
            }
        });
        return live;
    }

    /** Pools whose accepted spec is live and not being deleted. */
    Map<String, NodePoolAccepted> livePools() {
        Map<String, NodePoolAccepted> pools = new TreeMap<>();
        live(accepted).forEach((k, v) -> {
            if (!v.deleting()) {
                pools.put(k, v);
            }
        });
        return pools;
    }

    /** Every live pool passed validation (an invalid pool is admitted nothing, so it would prove nothing). */
    List<String> validPools() {
        List<String> found = new ArrayList<>();
        livePools().forEach((key, a) -> {
            if (a.validation() == null || !a.validation().valid()) {
                found.add(key + ": " + a.validation());
            }
        });
        return shown(found);
    }

    /**
     * The services agree on which pools exist: a live pool has a quota decision and a capacity entry of its current
     * incarnation and generation, quota was asked for its target, capacity for what quota admitted; the status shows
     * that incarnation; a deleted pool has neither (tombstoned) and no status; nothing is left being deleted.
     */
    List<String> finalAgreement() {
        List<String> found = new ArrayList<>();
        Map<String, NodePoolAccepted> acceptedNow = latest(accepted);
        Map<String, QuotaChecked> quotaNow = latest(quota);
        Map<String, CapacityChecked> capacityNow = latest(capacity);
        Map<String, NodePool> statusNow = latest(status);
        Set<String> keys = new TreeSet<>();
        keys.addAll(acceptedNow.keySet());
        keys.addAll(quotaNow.keySet());
        keys.addAll(capacityNow.keySet());
        keys.addAll(statusNow.keySet());
        for (String key : keys) {
            NodePoolAccepted a = acceptedNow.get(key);
            QuotaChecked q = quotaNow.get(key);
            CapacityChecked c = capacityNow.get(key);
            NodePool s = statusNow.get(key);
            if (a == null) {
                if (q != null || c != null || s != null) {
                    found.add(key + " is deleted but still has"
                            + (q != null ? " quota decision " + q.pool().uid() : "")
                            + (c != null ? " capacity-checked " + c.pool().uid() + " " + c.grants() : "")
                            + (s != null ? " nodepool-status " + s.metadata().uid() : ""));
                }
                continue;
            }
            if (a.deleting()) {
                found.add(key + " is still being deleted");
                continue;
            }
            String uid = a.uid();
            long gen = a.generation();
            if (q == null
                    || !q.pool().uid().equals(uid)
                    || q.pool().generation() != gen
                    || q.requestedNodes() != a.nodePool().spec().target()) {
                found.add(key + " (uid " + uid + ", gen " + gen + ", target "
                        + a.nodePool().spec().target()
                        + ") has quota decision "
                        + (q == null
                                ? "none"
                                : q.pool().uid() + " gen " + q.pool().generation() + " requested "
                                        + q.requestedNodes()));
                continue;
            }
            if (c == null
                    || !c.pool().uid().equals(uid)
                    || c.pool().generation() != gen
                    || c.requestedNodes() != q.admittedNodes()) {
                found.add(key + " (uid " + uid + ", gen " + gen + ", admitted " + q.admittedNodes()
                        + ") has capacity-checked "
                        + (c == null
                                ? "none"
                                : c.pool().uid() + " gen " + c.pool().generation() + " requested "
                                        + c.requestedNodes()));
            }
            if (s == null || !uid.equals(s.metadata().uid())) {
                found.add(key + " (uid " + uid + ") has nodepool-status "
                        + (s == null ? "none" : s.metadata().uid()));
            }
        }
        return shown(found);
    }

    /**
     * The ledger now: no machine in two pools, at most the fleet granted, every granted machine one of the fleet's;
     * each pool waits for exactly what it was admitted beyond what it holds (and holds no more than admitted once
     * scale-downs are done); nothing waits while a machine is free; and the capacity-service's own view of the ledger
     * ({@code GET /admin/fleet/{zone}/{type}}) matches the topic: total, allocated = the sum of the grants, free, each
     * pool's count, each machine's holder and grant id, the queue.
     */
    List<String> finalCapacity(JsonNode fleet) {
        List<String> found = new ArrayList<>();
        Map<String, NodePoolAccepted> pools = livePools();
        Map<String, CapacityChecked> capacityNow = live(capacity);
        Map<String, String> holder = new TreeMap<>();
        Map<String, Integer> byPool = new TreeMap<>();
        int granted = 0;
        int queued = 0;
        for (var e : capacityNow.entrySet()) {
            CapacityChecked c = e.getValue();
            for (Grant g : grants(c)) {
                String before = holder.put(g.machine(), e.getKey() + "#" + g.grantId());
                if (before != null) {
                    found.add("machine " + g.machine() + " is granted to " + before + " and " + e.getKey() + "#"
                            + g.grantId());
                }
            }
            int held = grants(c).size();
            granted += held;
            if (held > 0) {
                byPool.put(e.getKey(), held);
            }
            if (c.queuedNodes() != Math.max(0, c.requestedNodes() - held)) {
                found.add(e.getKey() + " requested " + c.requestedNodes() + ", holds " + held + ", but says "
                        + c.queuedNodes() + " queued");
            }
            queued += Math.max(0, c.queuedNodes());
            if (!pools.containsKey(e.getKey())) {
                found.add(e.getKey() + " has a capacity entry but is not a live pool");
            }
        }
        if (granted > setup.fleetSize()) {
            found.add(granted + " machines granted, the fleet has " + setup.fleetSize());
        }
        // The capacity-service's own view.
        long total = fleet.path("total").asLong(-1);
        long allocated = fleet.path("allocated").asLong(-1);
        long adminFree = fleet.path("free").asLong(-1);
        long maintenance = fleet.path("maintenance").asLong(-1);
        // A machine in maintenance (a failed delivery, an operator) is in the fleet but not to be handed out.
        long free = setup.fleetSize() - granted - Math.max(0, maintenance);
        if (queued > 0 && free > 0) {
            found.add(queued + " node(s) wait while " + free + " machine(s) are free (" + maintenance
                    + " in maintenance): " + waiting(capacityNow));
        }
        if (total != setup.fleetSize()) {
            found.add("admin view: total " + total + ", the fleet was set to " + setup.fleetSize());
        }
        if (allocated != granted) {
            found.add("admin view: allocated " + allocated + " but the grants in capacity-checked sum to " + granted);
        }
        if (adminFree != total - allocated - maintenance) {
            found.add("admin view: free " + adminFree + " != total " + total + " - allocated " + allocated
                    + " - maintenance " + maintenance);
        }
        if (queued > 0 && adminFree != 0) {
            found.add("admin view: " + adminFree + " machine(s) free while " + queued + " node(s) wait");
        }
        Map<String, Integer> adminByPool = new TreeMap<>();
        fleet.path("allocatedByPool")
                .properties()
                .forEach(e -> adminByPool.put(e.getKey(), e.getValue().asInt()));
        if (!adminByPool.equals(byPool)) {
            found.add("admin view: allocatedByPool " + adminByPool + " but capacity-checked grants " + byPool);
        }
        Set<String> fleetMachines = new TreeSet<>();
        Map<String, String> adminHolder = new TreeMap<>();
        for (JsonNode m : fleet.path("machines")) {
            String status = m.path("status").asText();
            if (!"RETIRED".equals(status)) {
                fleetMachines.add(m.path("name").asText());
            }
            if ("ALLOCATED".equals(status)) {
                adminHolder.put(
                        m.path("name").asText(),
                        m.at("/allocation/pool").asText() + "#"
                                + m.at("/allocation/grantId").asLong());
            }
        }
        if (!adminHolder.equals(holder)) {
            found.add("admin view: machines allocated " + adminHolder + " but capacity-checked grants " + holder);
        }
        for (GrantLife life : lives) {
            if (!fleetMachines.contains(life.machine())) {
                found.add("grant " + life.grantId() + " to " + life.key() + " is of machine " + life.machine()
                        + ", which is not in the fleet " + fleetMachines);
            }
        }
        Map<String, Integer> adminQueue = new TreeMap<>();
        fleet.path("queue")
                .forEach(w -> adminQueue.put(
                        w.path("pool").asText(), w.path("waitingNodes").asInt()));
        Map<String, Integer> topicQueue = new TreeMap<>();
        capacityNow.forEach((k, c) -> {
            if (c.queuedNodes() > 0) {
                topicQueue.put(k, c.queuedNodes());
            }
        });
        if (!adminQueue.equals(topicQueue)) {
            found.add("admin view: queue " + adminQueue + " but capacity-checked queued " + topicQueue);
        }
        return shown(found);
    }

    /**
     * Quota now, per org: the admitted targets of its live pools sum to at most its quota, no live pool's latest
     * decision saw a usage above that quota, the quota-service's admin view says the org uses exactly that sum, and no
     * pool waits whose whole request would fit (quota admits first-fit whenever room appears). (A decision carries the
     * usage of when it was made: it is not republished when only another pool changes.)
     */
    List<String> finalQuota(JsonNode quotas) {
        List<String> found = new ArrayList<>();
        Map<String, NodePoolAccepted> pools = livePools();
        Map<String, QuotaChecked> quotaNow = live(quota);
        for (var org : setup.quotas().entrySet()) {
            int limit = org.getValue();
            Map<String, QuotaChecked> mine = new TreeMap<>();
            quotaNow.forEach((k, q) -> {
                if (k.startsWith(org.getKey() + "/") && pools.containsKey(k)) {
                    mine.put(k, q);
                }
            });
            int sum =
                    mine.values().stream().mapToInt(QuotaChecked::admittedNodes).sum();
            if (sum > limit) {
                found.add(org.getKey() + ": admitted targets sum to " + sum + ", over its quota " + limit + ": "
                        + admitted(mine));
            }
            mine.forEach((k, q) -> {
                if (q.usage() > limit) {
                    found.add(k + "'s latest decision says the org uses " + q.usage() + ", over its quota " + limit
                            + ": " + admitted(mine));
                }
                if (q.admittedNodes() < q.requestedNodes() && sum - q.admittedNodes() + q.requestedNodes() <= limit) {
                    found.add(k + " waits for " + q.requestedNodes() + " (admitted " + q.admittedNodes()
                            + ") although it " + "fits: the org uses " + sum + " of " + limit);
                }
                String expected = q.admittedNodes() == q.requestedNodes() ? "Under" : "Over";
                if (!expected.equals(q.reason())) {
                    found.add(k + " admitted " + q.admittedNodes() + " of " + q.requestedNodes() + " but reason "
                            + q.reason());
                }
            });
            int used = -1;
            for (JsonNode item : quotas.path("items")) {
                if (org.getKey().equals(item.path("org").asText())
                        && setup.zone().equals(item.path("zone").asText())
                        && setup.instanceType().equals(item.path("instanceType").asText())) {
                    used = item.path("usedNodes").asInt();
                    if (item.path("maxNodes").asInt() != limit) {
                        found.add(org.getKey() + ": admin view says quota " + item.path("maxNodes") + ", configured "
                                + limit);
                    }
                }
            }
            if (used != sum) {
                found.add(
                        org.getKey() + ": admin view says " + used + " nodes used, its quota decisions sum to " + sum);
            }
        }
        return shown(found);
    }

    /**
     * Quota binds what an org holds, not only what it is admitted: once settled, no pool holds more machines than quota
     * admitted it, and an org's pools hold no more machines than its quota. (While a scale-down is under way a pool may
     * hold more than it is admitted, by design: the ledger keeps a grant until the provisioner releases it.) Each
     * offending pool is shown with its history: accepted generations and targets, quota decisions (admitted/requested),
     * capacity entries (requested, grant ids held) and node facts.
     */
    List<String> quotaBindsHoldings() {
        List<String> found = new ArrayList<>();
        Map<String, NodePoolAccepted> pools = livePools();
        Map<String, QuotaChecked> quotaNow = live(quota);
        Map<String, CapacityChecked> capacityNow = live(capacity);
        Map<String, Integer> heldByOrg = new TreeMap<>();
        List<String> over = new ArrayList<>();
        capacityNow.forEach((key, c) -> {
            int held = grants(c).size();
            heldByOrg.merge(c.pool().org(), held, Integer::sum);
            QuotaChecked q = quotaNow.get(key);
            int admitted = q == null || !q.pool().uid().equals(c.pool().uid()) ? 0 : q.admittedNodes();
            if (held > admitted && pools.containsKey(key)) {
                over.add(key);
                found.add(key + " holds " + held + " machine(s) " + grants(c) + " but quota admitted it " + admitted
                        + " (target " + pools.get(key).nodePool().spec().target() + ", quota "
                        + (q == null ? "none" : q.reason() + " " + q.admittedNodes() + "/" + q.requestedNodes()) + ")");
            }
        });
        setup.quotas().forEach((org, limit) -> {
            int held = heldByOrg.getOrDefault(org, 0);
            if (held > limit) {
                found.add(0, org + " holds " + held + " machines, its quota is " + limit);
            }
        });
        over.forEach(key -> found.add("history of " + key + ": " + timeline(key)));
        return found;
    }

    /** A pool's history across the topics, compactly, for evidence. */
    String timeline(String key) {
        List<String> accepts = new ArrayList<>();
        for (Kept<NodePoolAccepted> r : flat(accepted)) {
            if (r.key().equals(key)) {
                accepts.add(
                        r.tombstone()
                                ? "gone"
                                : "g" + r.value().generation() + "="
                                        + r.value().nodePool().spec().target()
                                        + (r.value().deleting() ? "(deleting)" : "") + "@"
                                        + r.value().acceptedAt());
            }
        }
        List<String> quotas = new ArrayList<>();
        for (Kept<QuotaChecked> r : flat(quota)) {
            if (r.key().equals(key)) {
                quotas.add(
                        r.tombstone()
                                ? "gone"
                                : "g" + r.value().pool().generation() + ":"
                                        + r.value().admittedNodes() + "/"
                                        + r.value().requestedNodes() + "@"
                                        + r.value().checkedAt());
            }
        }
        List<String> grants = new ArrayList<>();
        for (Kept<CapacityChecked> r : flat(capacity)) {
            if (r.key().equals(key)) {
                grants.add(
                        r.tombstone()
                                ? "gone"
                                : "g" + r.value().pool().generation() + ":req"
                                        + r.value().requestedNodes()
                                        + grants(r.value()).stream()
                                                .map(Grant::grantId)
                                                .toList() + "@" + r.value().checkedAt());
            }
        }
        List<String> facts = new ArrayList<>();
        for (Kept<NodeFact> r : flat(nodes)) {
            if (!r.key().equals(key)) {
                continue;
            }
            switch (r.value()) {
                case NodeFact.NodeAssigned a ->
                    facts.add("assigned#" + a.grant().grantId() + "@" + a.at());
                case NodeFact.NodeRemoved n ->
                    facts.add("removed#" + n.grant().grantId() + "(" + n.cause() + ")@" + n.at());
                case NodeFact.NodePoolReconciled n ->
                    facts.add("reconciled g" + n.pool().generation() + " target " + n.targetNodes() + " current "
                            + n.currentNodes() + "@" + n.at());
                default -> {}
            }
        }
        return "accepted " + tail(accepts) + "; quota " + tail(quotas) + "; capacity " + tail(grants) + "; nodes "
                + tail(facts);
    }

    private static List<String> tail(List<String> list) {
        return list.size() <= 8 ? list : list.subList(list.size() - 8, list.size());
    }

    /**
     * The pools themselves once settled: each live pool's status has no node in progress, as many current nodes as it
     * holds grants and no more than its target, and the queue capacity reports; its nodes on
     * {@code nodepool-nodes-changed} (latest fact per pool and node) are exactly its grants, registered.
     */
    List<String> finalPools() {
        List<String> found = new ArrayList<>();
        Map<String, NodePoolAccepted> pools = livePools();
        Map<String, CapacityChecked> capacityNow = live(capacity);
        Map<String, NodePool> statusNow = live(status);
        Map<String, Map<String, NodeFact.AboutNode>> nodesNow = new TreeMap<>();
        for (Kept<NodeFact> r : flat(nodes)) {
            if (r.value() instanceof NodeFact.AboutNode about) {
                nodesNow.computeIfAbsent(r.key(), k -> new TreeMap<>())
                        .put(about.node().name(), about);
            }
        }
        for (var e : pools.entrySet()) {
            String key = e.getKey();
            NodePoolAccepted a = e.getValue();
            CapacityChecked c = capacityNow.get(key);
            NodePool s = statusNow.get(key);
            List<Grant> held = c == null || !c.pool().uid().equals(a.uid()) ? List.of() : grants(c);
            if (s != null && s.status() != null) {
                int current = Objects.requireNonNullElse(s.status().currentNodes(), 0);
                int inProgress = Objects.requireNonNullElse(s.status().inProgress(), 0);
                int target = s.spec().target();
                if (current + inProgress > target) {
                    found.add(key + ": " + current + " current + " + inProgress + " in progress > target " + target);
                }
                if (current != held.size() || inProgress != 0) {
                    found.add(key + ": status shows " + current + " current, " + inProgress
                            + " in progress, but the pool " + "holds " + held.size() + " grants " + held);
                }
                int queued = c == null ? 0 : c.queuedNodes();
                if (!Objects.equals(s.status().queuedNodes(), queued)) {
                    found.add(
                            key + ": status shows " + s.status().queuedNodes() + " queued, capacity-checked " + queued);
                }
                if (target != a.nodePool().spec().target()) {
                    found.add(key + ": status target " + target + ", accepted target "
                            + a.nodePool().spec().target());
                }
            } else {
                found.add(key + ": no status");
            }
            Map<String, Long> liveNodes = new TreeMap<>();
            nodesNow.getOrDefault(key, Map.of()).forEach((name, fact) -> {
                if (!(fact instanceof NodeFact.NodeRemoved) && fact.pool().uid().equals(a.uid())) {
                    liveNodes.put(name, fact.grant().grantId());
                    if (fact.node().phase() != Node.Phase.Registered) {
                        found.add(key + ": node " + name + " is " + fact.node().phase());
                    }
                }
            });
            Map<String, Long> grantMap = new TreeMap<>();
            held.forEach(g -> grantMap.put(g.machine(), g.grantId()));
            if (!liveNodes.equals(grantMap)) {
                found.add(key + ": nodes " + liveNodes + " but grants " + grantMap);
            }
        }
        // No node is left in a deleted pool or an old incarnation.
        nodesNow.forEach((key, byName) -> byName.forEach((name, fact) -> {
            NodePoolAccepted a = pools.get(key);
            if (!(fact instanceof NodeFact.NodeRemoved)
                    && (a == null || !a.uid().equals(fact.pool().uid()))) {
                found.add(key + ": node " + name + " of incarnation "
                        + fact.pool().uid() + " was never removed");
            }
        }));
        return shown(found);
    }

    // ------------------------------------------------------------------------------------------------- helpers

    private List<GrantLife> grantLives() {
        List<GrantLife> all = new ArrayList<>();
        Map<String, List<Kept<CapacityChecked>>> byKey = new LinkedHashMap<>();
        for (Kept<CapacityChecked> r : flat(capacity)) {
            byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
        }
        byKey.forEach((key, records) -> {
            Map<Long, GrantLife> open = new LinkedHashMap<>();
            Set<Long> closed = new HashSet<>();
            for (Kept<CapacityChecked> r : records) {
                if (r.tombstone()) {
                    open.values().forEach(l -> all.add(ended(l, r, End.FORGOTTEN)));
                    closed.addAll(open.keySet());
                    open.clear();
                    continue;
                }
                String uid = r.value().pool().uid();
                Set<Long> listed = new HashSet<>();
                grants(r.value()).forEach(g -> listed.add(g.grantId()));
                for (var it = open.values().iterator(); it.hasNext(); ) {
                    GrantLife l = it.next();
                    if (!l.uid().equals(uid)) {
                        all.add(ended(l, r, End.REINCARNATED));
                    } else if (!listed.contains(l.grantId())) {
                        all.add(ended(l, r, End.RELEASED));
                    } else {
                        continue;
                    }
                    closed.add(l.grantId());
                    it.remove();
                }
                for (Grant g : grants(r.value())) {
                    if (open.containsKey(g.grantId())) {
                        continue;
                    }
                    if (closed.contains(g.grantId())) {
                        identityViolations.add(r.where() + " " + key + " lists grant " + g.grantId() + " of "
                                + g.machine() + " again after it had ended");
                        continue;
                    }
                    open.put(g.grantId(), new GrantLife(g.grantId(), g.machine(), key, uid, r, null, End.HELD));
                }
            }
            all.addAll(open.values());
        });
        return all;
    }

    private static GrantLife ended(GrantLife life, Kept<CapacityChecked> end, End how) {
        return new GrantLife(life.grantId(), life.machine(), life.key(), life.uid(), life.first(), end, how);
    }

    /**
     * x (a value) was written by the ledger in the same commit as y (a value) or before. The ledger's instant names the
     * commit; within one commit offsets do not order the records, even in one partition.
     */
    private static boolean notAfter(Kept<CapacityChecked> x, Kept<CapacityChecked> y) {
        return !x.value().checkedAt().isAfter(y.value().checkedAt());
    }

    /**
     * Whether the end of a grant ({@code end}) was written in the same commit as the start of the next grant
     * ({@code start}, a value) or before. A value end: the ledger's instants. A tombstone end carries no instant: it is
     * proven late only if a value written in a later commit than {@code start} precedes it in its partition; one that
     * precedes {@code start} in the same partition is early.
     */
    private boolean endedBefore(Kept<CapacityChecked> end, Kept<CapacityChecked> start) {
        if (!end.tombstone()) {
            return notAfter(end, start);
        }
        if (end.partition() == start.partition() && end.offset() < start.offset()) {
            return true;
        }
        Instant latestBefore = null;
        for (Kept<CapacityChecked> r : capacity.get(end.partition())) {
            if (r.offset() >= end.offset()) {
                break;
            }
            if (!r.tombstone()) {
                latestBefore = r.value().checkedAt();
            }
        }
        return latestBefore == null || !latestBefore.isAfter(start.value().checkedAt());
    }

    private Map<Long, List<NodeFact.NodeRemoved>> removedByGrant() {
        Map<Long, List<NodeFact.NodeRemoved>> removed = new HashMap<>();
        for (Kept<NodeFact> r : flat(nodes)) {
            if (r.value() instanceof NodeFact.NodeRemoved n && n.grant() != null) {
                removed.computeIfAbsent(n.grant().grantId(), id -> new ArrayList<>())
                        .add(n);
            }
        }
        return removed;
    }

    private static String describe(Kept<CapacityChecked> r) {
        return r.tombstone()
                ? "tombstone, written at " + Instant.ofEpochMilli(r.timestamp())
                : "checkedAt " + r.value().checkedAt();
    }

    private static List<Grant> grants(CapacityChecked c) {
        return c.grants() == null ? List.of() : c.grants();
    }

    private static String waiting(Map<String, CapacityChecked> capacityNow) {
        Map<String, Integer> waiting = new TreeMap<>();
        capacityNow.forEach((k, c) -> {
            if (c.queuedNodes() > 0) {
                waiting.put(k, c.queuedNodes());
            }
        });
        return waiting.toString();
    }

    private static String admitted(Map<String, QuotaChecked> pools) {
        Map<String, String> shown = new TreeMap<>();
        pools.forEach((k, q) -> shown.put(k, q.admittedNodes() + "/" + q.requestedNodes()));
        return shown.toString();
    }

    /**
     * The quota-service's decision of each pool, as it tells them to the capacity ledgers on {@code capacity-demanded}
     * (keyed by ledger, the pool in the value): each record kept under its pool's key, with the decision, or as a
     * tombstone when the pool's incarnation left its quota. A pool's decisions all go to its ledger's partition, in the
     * order they were made. A record that is not a demand (another test's poison) is no decision of ours.
     */
    static Tail<QuotaChecked> quotaDecisions(String bootstrapServers, Predicate<String> pools) {
        return Tail.of(bootstrapServers, Topics.CAPACITY_DEMANDED.name(), r -> {
            CapacityDemanded demand;
            try {
                demand = r.value() == null ? null : Json.read(r.value(), CapacityDemanded.class);
            } catch (IllegalArgumentException notADemand) {
                return null;
            }
            return demand == null || demand.pool() == null || !pools.test(demand.pool())
                    ? null
                    : new Kept<>(demand.pool(), demand.quota(), r);
        });
    }

    static <T> List<Kept<T>> flat(List<List<Kept<T>>> partitions) {
        List<Kept<T>> all = new ArrayList<>();
        partitions.forEach(all::addAll);
        return all;
    }

    private static List<String> shown(List<String> found) {
        if (found.size() <= SHOWN) {
            return found;
        }
        List<String> shown = new ArrayList<>(found.subList(0, SHOWN));
        shown.add("... and " + (found.size() - SHOWN) + " more");
        return shown;
    }
}
