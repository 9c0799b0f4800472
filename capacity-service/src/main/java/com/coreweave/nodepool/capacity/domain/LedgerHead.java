package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The head record of one ledger: {@code sequence} counts the inputs that changed the ledger (deterministic ids of
 * its outputs come from it; an input that changes nothing writes nothing, so it does not count), grant ids and queue
 * tickets only ever grow, machines {@code 1..machineCount} exist (retired ones included), and
 * {@code fleetChangesRecorded} numbers the fleet changes applied so far. {@code legacy} is a ledger stored whole by
 * an earlier version, read back so that an upgrade keeps every grant; the first change writes it out record by
 * record.
 */
public record LedgerHead(String zone, String instanceType, long sequence, long lastGrantId, long lastTicket,
                         int machineCount, long fleetChangesRecorded, @JsonIgnore Legacy legacy)
    implements LedgerRecord {

  /** A ledger as earlier versions stored it: every machine by name, every pool, the remembered fleet changes. */
  public record Legacy(Map<String, Machine> machines, Map<String, LegacyPool> pools, List<FleetOutcome> changes) {
  }

  /** A pool as earlier versions stored it (their oldest kept the whole {@code capacity-checked}, not its reason). */
  public record LegacyPool(PoolRef ref, int demand, Long ticket, Instant waitingSince, long insufficientReported,
                           String publishedReason, CapacityChecked published) {

    String reason() {
      return published == null ? publishedReason : published.reason();
    }
  }

  @JsonCreator
  static LedgerHead read(@JsonProperty("zone") String zone, @JsonProperty("instanceType") String instanceType,
                         @JsonProperty("sequence") long sequence, @JsonProperty("lastGrantId") long lastGrantId,
                         @JsonProperty("lastTicket") long lastTicket, @JsonProperty("machineCount") int machineCount,
                         @JsonProperty("fleetChangesRecorded") long fleetChangesRecorded,
                         @JsonProperty("machines") Map<String, Machine> machines,
                         @JsonProperty("pools") Map<String, LegacyPool> pools,
                         @JsonProperty("fleetChanges") List<FleetOutcome> changes) {
    Legacy legacy = machines == null && pools == null ? null
        : new Legacy(machines == null ? Map.of() : machines, pools == null ? Map.of() : pools,
            changes == null ? List.of() : changes);
    return new LedgerHead(zone, instanceType, sequence, lastGrantId, lastTicket, machineCount, fleetChangesRecorded,
        legacy);
  }
}
