package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code capacity-checked} of each pool decided since the task's last commit, written with the commit: one record
 * per pool, its last decision (or tombstone), however many inputs of the commit changed it. 5,000 releases of one pool
 * within a commit leave one record listing what the pool still holds, not 5,000 records of up to 5,000 grants.
 *
 * <p>The records of one commit are one moment of the ledger, the only one a read_committed reader can see: each is
 * stamped with the instant of the latest decision among them ({@code checkedAt}), and lists the grants its ledger holds
 * at the commit. So a machine released by one pool and granted to another within a commit leaves the first pool's
 * record at the same instant as it enters the other's, as it did when each input was its own moment.
 */
final class PendingChecks {

    /** A pool's last decision (null: a tombstone), the ledger that made it, and the events it carries. */
    private record Pending(Ledger ledger, CapacityChecked checked, List<RecordedEvent> events) {}

    /** In the order each pool was last decided. */
    private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();

    /**
     * Holds {@code checked} (null: a tombstone), decided by {@code ledger}, as the pool's decision, in place of any
     * earlier one of this commit, with the events it carries ({@code events}, after those of the decision it replaces).
     * Returns the events that must go on their own: a tombstone carries none, and a record carries at most a record's
     * worth of events.
     */
    List<RecordedEvent> hold(String pool, Ledger ledger, CapacityChecked checked, List<RecordedEvent> events) {
        Pending replaced = pending.remove(pool);
        List<RecordedEvent> carried = new ArrayList<>(replaced == null ? List.of() : replaced.events());
        carried.addAll(events);
        if (checked == null) {
            pending.put(pool, new Pending(ledger, null, List.of()));
            return carried;
        }
        if (carried.size() > Limits.MAX_EVENTS_PER_RECORD) {
            pending.put(pool, new Pending(ledger, checked, events));
            return carried.subList(0, carried.size() - events.size());
        }
        pending.put(pool, new Pending(ledger, checked, carried));
        return List.of();
    }

    /**
     * Every held record (null: a tombstone) by pool, in the order they were last decided, stamped with the latest
     * decision's instant and listing the grants its ledger holds now; holds nothing after.
     */
    List<Map.Entry<String, CapacityChecked>> take() {
        Instant at = pending.values().stream()
                .filter(p -> p.checked() != null)
                .map(p -> p.checked().checkedAt())
                .max(Instant::compareTo)
                .orElse(null);
        List<Map.Entry<String, CapacityChecked>> records = new ArrayList<>(pending.size());
        pending.forEach((pool, held) -> records.add(new AbstractMap.SimpleEntry<>(
                pool,
                held.checked() == null
                        ? null
                        : held.ledger().withGrants(stamped(held.checked(), at)).withEvents(held.events()))));
        pending.clear();
        return records;
    }

    private static CapacityChecked stamped(CapacityChecked checked, Instant at) {
        return new CapacityChecked(
                checked.pool(),
                checked.reason(),
                checked.requestedNodes(),
                checked.grants(),
                checked.queuedNodes(),
                checked.queuePosition(),
                checked.queueLength(),
                checked.message(),
                at,
                checked.quotaReason(),
                checked.quotaMessage(),
                checked.events());
    }
}
