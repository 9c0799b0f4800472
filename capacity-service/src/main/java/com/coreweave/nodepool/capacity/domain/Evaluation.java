package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One input being decided: the ledger, the changes it makes to it, its time, and what it changed besides the machines
 * (whose demand moved, who was granted what, who was forgotten) with the reclaims and events it publishes.
 */
final class Evaluation {

    final Ledger ledger;
    final LedgerChanges changes;
    final Instant now;
    final Map<String, Integer> previousDemand = new HashMap<>();
    final Map<String, Integer> grantedNow = new HashMap<>();
    final List<String> forgotten = new ArrayList<>();
    final List<SpotReclaimRequested> reclaims = new ArrayList<>();
    final List<RecordedEvent> events = new ArrayList<>();
    /** A machine a pool released for a deleted node, which that pool should not be handed straight back. */
    final Map<String, Integer> releasedBy = new HashMap<>();

    Evaluation(Ledger ledger, LedgerChanges changes, Instant now) {
        this.ledger = ledger;
        this.changes = changes;
        this.now = now;
    }
}
