package com.coreweave.nodepool.capacity.rest;

import static com.coreweave.nodepool.kit.reads.InteractiveQueries.segment;

import com.coreweave.nodepool.capacity.domain.Availability;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.FleetOutcome;
import com.coreweave.nodepool.capacity.domain.Ledger;
import com.coreweave.nodepool.capacity.domain.LedgerRecord;
import com.coreweave.nodepool.capacity.domain.LedgerSummary;
import com.coreweave.nodepool.capacity.streams.StoreNames;
import com.coreweave.nodepool.capacity.streams.StoredLedgers;
import com.coreweave.nodepool.kit.reads.InteractiveQueries;
import com.coreweave.nodepool.kit.reads.InternalReads;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.SpotZones;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads ledgers from the Streams state store by interactive queries: a single ledger or an operator change's outcome
 * from the instance that owns its key, lists and the Capacity Finder from every instance's share. Forwarded reads carry
 * the caller's token. A ledger is many records ({@code StoredLedgers}), so instances exchange summaries.
 */
@ApplicationScoped
public class LedgerReads {

    /** An operator change the ledger has applied: its outcome and the ledger after it. */
    public record Applied(FleetOutcome outcome, LedgerSummary ledger) {}

    @Inject
    InteractiveQueries queries;

    @Inject
    Catalogue catalogue;

    /** One ledger with its machines and remembered changes; empty while it has none. */
    public Optional<LedgerSummary> ledger(ZoneTypeKey key) {
        Optional<HostInfo> owner = queries.remoteOwner(StoreNames.LEDGERS, key.toString());
        return owner.isEmpty()
                ? localLedger(key).map(l -> LedgerSummary.of(l, true))
                : queries.fetch(owner.get(), path(key), Json.mapper().constructType(LedgerSummary.class));
    }

    /** The outcome of an operator change, once its ledger has applied it. */
    public Optional<Applied> applied(ZoneTypeKey key, String requestId) {
        Optional<HostInfo> owner = queries.remoteOwner(StoreNames.LEDGERS, key.toString());
        return owner.isEmpty()
                ? localApplied(key, requestId)
                : queries.fetch(
                        owner.get(),
                        InternalReads.path(
                                CapacityPeerReads.LEDGERS,
                                key.zone(),
                                key.instanceType(),
                                CapacityPeerReads.FLEET_CHANGES,
                                requestId),
                        Json.mapper().constructType(Applied.class));
    }

    /** Every ledger, from all instances. */
    public List<LedgerSummary> ledgers() {
        List<LedgerSummary> all = new ArrayList<>(
                localLedgers().stream().map(l -> LedgerSummary.of(l, false)).toList());
        all.addAll(queries.fromOthers(
                StoreNames.LEDGERS,
                InternalReads.path(CapacityPeerReads.LEDGERS),
                new TypeReference<List<LedgerSummary>>() {},
                summary -> summary.zone() + "/" + summary.instanceType()));
        return all;
    }

    /** The Capacity Finder's zones for {@code type}, from all instances; a zone without a fleet has nothing free. */
    public List<Availability> availability(InstanceType type, int nodes) {
        Map<String, Availability> byZone = new HashMap<>();
        localAvailability(type, nodes).forEach(a -> byZone.put(a.zone(), a));
        queries.aggregateFromOthers(
                        StoreNames.LEDGERS,
                        InternalReads.path(CapacityPeerReads.AVAILABILITY) + "?instanceType=" + segment(type.name())
                                + "&nodes=" + nodes,
                        new TypeReference<List<Availability>>() {})
                .forEach(a -> byZone.put(a.zone(), a));
        List<Availability> zones = new ArrayList<>();
        for (String zone : type.zones()) {
            zones.add(byZone.getOrDefault(
                    zone, Availability.of(zone, null, nodes, SpotZones.offered(zone, type.superchip()))));
        }
        return Availability.ranked(zones);
    }

    public Optional<Ledger> localLedger(ZoneTypeKey key) {
        return queries.readLocal(
                StoreNames.LEDGERS,
                (ReadOnlyKeyValueStore<String, LedgerRecord> store) -> StoredLedgers.read(store, key));
    }

    public Optional<Applied> localApplied(ZoneTypeKey key, String requestId) {
        return queries.readLocal(
                StoreNames.LEDGERS,
                (ReadOnlyKeyValueStore<String, LedgerRecord> store) -> StoredLedgers.fleetChange(store, key, requestId)
                        .map(outcome -> new Applied(
                                outcome,
                                LedgerSummary.of(
                                        StoredLedgers.read(store, key).orElseGet(() -> Ledger.empty(key)), false))));
    }

    /** This instance's ledgers: those of the catalogue's zones and types whose key it owns. */
    public List<Ledger> localLedgers() {
        List<Ledger> ledgers = new ArrayList<>();
        for (InstanceType type : catalogue.all()) {
            for (String zone : type.zones()) {
                localLedger(new ZoneTypeKey(zone, type.name())).ifPresent(ledgers::add);
            }
        }
        return ledgers;
    }

    /**
     * This instance's zones of {@code type}, for anyone: only counts of machines leave here, never a ledger's pools.
     * Spot is never offered on Superchip types.
     */
    public List<Availability> localAvailability(InstanceType type, int nodes) {
        List<Availability> zones = new ArrayList<>();
        for (String zone : type.zones()) {
            ZoneTypeKey key = new ZoneTypeKey(zone, type.name());
            queries.readLocalAggregate(
                            StoreNames.LEDGERS,
                            (ReadOnlyKeyValueStore<String, LedgerRecord> store) -> StoredLedgers.read(store, key))
                    .ifPresent(
                            l -> zones.add(Availability.of(zone, l, nodes, SpotZones.offered(zone, type.superchip()))));
        }
        return zones;
    }

    private static String path(ZoneTypeKey key) {
        return InternalReads.path(CapacityPeerReads.LEDGERS, key.zone(), key.instanceType());
    }
}
