package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The outcomes of the latest operator changes one ledger applied, numbered in the order they were applied, so a change
 * sent again gets its first outcome instead of being applied twice. Each is a record of its own
 * ({@link RememberedChange}); remembering one more forgets the oldest beyond the bound.
 */
final class RememberedFleetChanges {

    /** The remembered outcomes and how many changes were recorded, as they were before an input. */
    record Before(List<FleetOutcome> outcomes, long recorded) {}

    private ArrayDeque<FleetOutcome> outcomes;
    private long recorded;

    /** {@code recorded} changes applied so far, of which {@code outcomes} (oldest first) are remembered. */
    RememberedFleetChanges(long recorded, Collection<FleetOutcome> outcomes) {
        this.recorded = recorded;
        this.outcomes = new ArrayDeque<>(outcomes);
    }

    /** How many fleet changes were applied so far. */
    long recorded() {
        return recorded;
    }

    Optional<FleetOutcome> find(String requestId) {
        return outcomes.stream().filter(o -> o.requestId().equals(requestId)).findFirst();
    }

    /** The remembered outcomes, oldest first. */
    List<FleetOutcome> list() {
        return List.copyOf(outcomes);
    }

    Before before() {
        return new Before(List.copyOf(outcomes), recorded);
    }

    /** Remembers an operator change's outcome, forgetting the oldest beyond {@code remembered}. */
    void remember(FleetOutcome outcome, int remembered) {
        outcomes.addLast(outcome);
        recorded++;
        while (outcomes.size() > Math.max(1, remembered)) {
            outcomes.removeFirst();
        }
    }

    /** The records changed since {@code before}: the outcomes forgotten (deleted) and those remembered since. */
    void writesSince(Before before, ZoneTypeKey key, Map<String, LedgerRecord> writes) {
        long firstKept = recorded - outcomes.size() + 1;
        for (long n = before.recorded() - before.outcomes().size() + 1; n < firstKept; n++) {
            writes.put(LedgerKeys.change(key, n), null);
        }
        long n = firstKept;
        for (FleetOutcome outcome : outcomes) {
            if (n > before.recorded()) {
                writes.put(LedgerKeys.change(key, n), new RememberedChange(n, outcome));
            }
            n++;
        }
    }

    void restore(Before before) {
        outcomes = new ArrayDeque<>(before.outcomes());
        recorded = before.recorded();
    }
}
