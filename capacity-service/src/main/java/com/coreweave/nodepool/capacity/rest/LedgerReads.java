package com.coreweave.nodepool.capacity.rest;

import static com.coreweave.nodepool.kit.kafka.InteractiveQueries.segment;

import com.coreweave.nodepool.capacity.domain.Availability;
import com.coreweave.nodepool.capacity.domain.LedgerState;
import com.coreweave.nodepool.capacity.streams.StoreNames;
import com.coreweave.nodepool.kit.kafka.InteractiveQueries;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads ledgers from the Streams state stores by interactive queries: a single ledger from the instance that owns
 * its key, lists and the Capacity Finder from every instance's share. Forwarded reads carry the caller's token.
 */
@ApplicationScoped
public class LedgerReads {

  @Inject
  InteractiveQueries queries;

  public Optional<LedgerState> ledger(ZoneTypeKey key, String authorization) {
    return queries.get(StoreNames.LEDGERS, key.toString(),
        "/internal/ledgers/" + segment(key.zone()) + "/" + segment(key.instanceType()), authorization,
        LedgerState.class);
  }

  /** Every ledger, from all instances. */
  public List<LedgerState> ledgers(String authorization) {
    List<LedgerState> all = new ArrayList<>(localLedgers());
    all.addAll(queries.fromOthers(StoreNames.LEDGERS, "/internal/ledgers", authorization,
        new TypeReference<List<LedgerState>>() { }));
    return all;
  }

  /** The Capacity Finder's zones for {@code type}, from all instances; a zone without a fleet has nothing free. */
  public List<Availability> availability(InstanceType type, int nodes, String authorization) {
    Map<String, Availability> byZone = new HashMap<>();
    localAvailability(type, nodes).forEach(a -> byZone.put(a.zone(), a));
    queries.fromOthers(StoreNames.LEDGERS, "/internal/availability?instanceType=" + segment(type.name())
            + "&nodes=" + nodes, authorization, new TypeReference<List<Availability>>() { })
        .forEach(a -> byZone.put(a.zone(), a));
    List<Availability> zones = new ArrayList<>();
    for (String zone : type.zones()) {
      zones.add(byZone.getOrDefault(zone, Availability.of(zone, null, nodes, !type.superchip())));
    }
    return Availability.ranked(zones);
  }

  public Optional<LedgerState> localLedger(ZoneTypeKey key) {
    return queries.localGet(StoreNames.LEDGERS, key.toString());
  }

  public List<LedgerState> localLedgers() {
    return queries.localValues(StoreNames.LEDGERS, null);
  }

  /** This instance's zones of {@code type}; spot is never offered on Superchip types. */
  public List<Availability> localAvailability(InstanceType type, int nodes) {
    return localLedgers().stream()
        .filter(l -> l.instanceType().equals(type.name()) && type.offeredIn(l.zone()))
        .map(l -> Availability.of(l.zone(), l, nodes, !type.superchip()))
        .toList();
  }
}
