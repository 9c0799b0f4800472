package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.testing.TopicProbe.Tail;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * When the system has settled: every request decided, no pool still being deleted, every service caught up with every
 * live pool's incarnation and generation, no node in progress, deleted pools gone everywhere, and no new record on the
 * topics for {@code quiet}. These are progress conditions: the invariants are checked after. A node rebooting in place
 * counts as current and not in progress, as the reference has it, so this check would not see a reboot underway; the
 * chaos load reboots no node (no alerts, no reconfigures), and the quiet period outlasts a boot.
 */
final class Settling {

    private final Set<String> ids;
    private final List<Tail<?>> logs;
    private final Tail<RequestDecided> decided;
    private final Tail<NodePoolAccepted> accepted;
    private final Tail<QuotaChecked> quota;
    private final Tail<CapacityChecked> capacity;
    private final Tail<NodePool> status;
    private final Duration quiet;
    private final Duration read;
    private long lastSize = -1;
    private long lastChange = System.nanoTime();
    volatile String why = "not checked yet";

    Settling(
            Collection<String> ids,
            List<Tail<?>> logs,
            Tail<RequestDecided> decided,
            Tail<NodePoolAccepted> accepted,
            Tail<QuotaChecked> quota,
            Tail<CapacityChecked> capacity,
            Tail<NodePool> status,
            Duration quiet,
            Duration read) {
        this.ids = new HashSet<>(ids);
        this.logs = logs;
        this.decided = decided;
        this.accepted = accepted;
        this.quota = quota;
        this.capacity = capacity;
        this.status = status;
        this.quiet = quiet;
        this.read = read;
    }

    boolean settled() {
        logs.forEach(log -> log.catchUp(read));
        long size = logs.stream().mapToLong(Tail::size).sum();
        if (size != lastSize) {
            lastSize = size;
            lastChange = System.nanoTime();
        }
        List<String> reasons = reasons();
        long quietFor = System.nanoTime() - lastChange;
        if (reasons.isEmpty() && quietFor < quiet.toNanos()) {
            reasons = List.of("records still arriving");
        }
        why = reasons.isEmpty() ? "" : reasons.toString();
        return reasons.isEmpty();
    }

    List<String> reasons() {
        List<String> reasons = new ArrayList<>();
        Set<String> answered = new HashSet<>();
        decided.all().forEach(r -> {
            if (r.value() != null) {
                answered.add(r.value().requestId());
            }
        });
        long undecided = ids.stream().filter(id -> !answered.contains(id)).count();
        if (undecided > 0) {
            reasons.add(undecided + " request(s) not decided yet");
        }
        Map<String, NodePoolAccepted> pools = Invariants.latest(accepted.partitions());
        Map<String, QuotaChecked> quotaNow = Invariants.latest(quota.partitions());
        Map<String, CapacityChecked> capacityNow = Invariants.latest(capacity.partitions());
        Map<String, NodePool> statusNow = Invariants.latest(status.partitions());
        Set<String> keys = new TreeSet<>(pools.keySet());
        keys.addAll(quotaNow.keySet());
        keys.addAll(capacityNow.keySet());
        keys.addAll(statusNow.keySet());
        for (String key : keys) {
            NodePoolAccepted a = pools.get(key);
            QuotaChecked q = quotaNow.get(key);
            CapacityChecked c = capacityNow.get(key);
            NodePool s = statusNow.get(key);
            if (a == null) {
                if (q != null || c != null || s != null) {
                    reasons.add(key + " deleted but not yet forgotten everywhere");
                }
            } else if (a.deleting()) {
                reasons.add(key + " still being deleted");
            } else if (a.validation() == null || !a.validation().valid()) {
                reasons.add(key + " not validated yet: " + a.validation());
            } else if (q == null || !q.pool().uid().equals(a.uid()) || q.pool().generation() != a.generation()) {
                reasons.add(key + " quota not caught up");
            } else if (c == null
                    || !c.pool().uid().equals(a.uid())
                    || c.pool().generation() != a.generation()
                    || c.requestedNodes() != q.admittedNodes()) {
                reasons.add(key + " capacity not caught up");
            } else if (c.grants() != null && c.grants().size() > c.requestedNodes()) {
                // A scale-down drains its nodes first (a busy one for its workload's grace), and says nothing
                // meanwhile.
                reasons.add(key + " still scaling down");
            } else if (s == null
                    || s.status() == null
                    || !a.uid().equals(s.metadata().uid())
                    || s.status().observedGeneration() == null
                    || s.status().observedGeneration() != a.generation()
                    || s.status().inProgress() == null
                    || s.status().inProgress() != 0
                    || s.status().currentNodes() == null
                    || s.status().currentNodes()
                            != (c.grants() == null ? 0 : c.grants().size())) {
                reasons.add(key + " nodes not at their grants yet");
            }
        }
        return reasons;
    }
}
