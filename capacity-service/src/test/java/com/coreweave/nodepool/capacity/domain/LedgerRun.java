package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One ledger fed input after input, keeping what a reader of its topics would see: the latest
 * {@code capacity-checked} per pool (a tombstone removes it), every reclaim request and event.
 */
final class LedgerRun {

  final CapacityLedger ledger;
  LedgerState state = LedgerState.empty(Inputs.KEY);
  LedgerDecision last;
  final Map<String, CapacityChecked> published = new TreeMap<>();
  final List<SpotReclaimRequested> reclaims = new ArrayList<>();
  final List<RecordedEvent> events = new ArrayList<>();
  private Instant clock = Inputs.NOW;

  LedgerRun() {
    this(10_000);
  }

  LedgerRun(int maxMachines) {
    ledger = new CapacityLedger(maxMachines, 100);
  }

  LedgerDecision apply(LedgerInput input) {
    clock = clock.plusSeconds(1);
    last = ledger.apply(state, input, clock);
    state = last.state();
    for (LedgerDecision.PoolUpdate update : last.capacity()) {
      if (update.checked() == null) {
        published.remove(update.pool());
      } else {
        published.put(update.pool(), update.checked());
      }
    }
    reclaims.addAll(last.reclaims());
    events.addAll(last.events());
    return last;
  }

  LedgerRun with(LedgerInput... inputs) {
    for (LedgerInput input : inputs) {
      apply(input);
    }
    return this;
  }

  CapacityChecked checked(PoolRef pool) {
    return published.get(pool.key().toString());
  }

  List<Grant> grants(PoolRef pool) {
    return checked(pool).grants();
  }

  List<String> machinesOf(PoolRef pool) {
    return grants(pool).stream().map(Grant::machine).toList();
  }

  List<RecordedEvent> events(String reason) {
    return events.stream().filter(e -> e.reason().equals(reason)).toList();
  }
}
