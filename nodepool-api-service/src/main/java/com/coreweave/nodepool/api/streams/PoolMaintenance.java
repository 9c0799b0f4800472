package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.DeletedPoolEvents;
import com.coreweave.nodepool.api.domain.PlatformValidator;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RequestDecided;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Maintenance on wall-clock time: judges again the pools that are not valid yet (the catalogue may have arrived or
 * changed since), and forgets request ids and deleted pools' Events older than their retention.
 */
final class PoolMaintenance {

    private final PoolStores stores;
    private final StatusAggregation status;
    private final ApiSettings settings;
    private final Clock clock;

    PoolMaintenance(PoolStores stores, StatusAggregation status, ApiSettings settings, Clock clock) {
        this.stores = stores;
        this.status = status;
        this.settings = settings;
        this.clock = clock;
    }

    /** Judges the pools not valid yet again; whether any is still not valid. */
    boolean revalidate() {
        Instant now = clock.instant();
        List<String> keys = new ArrayList<>();
        try (KeyValueIterator<String, String> it = stores.unvalidated.all()) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        for (String key : keys) {
            PoolView view = stores.views.get(key);
            if (view == null || view.accepted().deleting()) {
                stores.unvalidated.delete(key);
                continue;
            }
            PlatformValidator.Verdict verdict =
                    stores.judge(key, view.accepted().nodePool().spec());
            if (verdict.validation().equals(view.accepted().validation())) {
                continue;
            }
            NodePoolAccepted next = new NodePoolAccepted(
                    view.accepted().org(),
                    view.accepted().nodePool(),
                    verdict.validation(),
                    now,
                    verdict.validation().valid() ? null : view.accepted().lastValid());
            stores.trackValidation(key, next);
            stores.publishAccepted(key, next);
            status.publish(key, view.withAccepted(next), now);
            PoolRef ref = PoolRef.of(next);
            verdict.events()
                    .forEach(f -> status.onEvent(
                            key,
                            RecordedEvent.ofPool(
                                    ref,
                                    f.event(),
                                    f.message(),
                                    ref.uid() + "/" + ref.generation(),
                                    ApiTopology.SERVICE,
                                    now)));
        }
        return stores.anyUnvalidated();
    }

    /**
     * Forgets the Events of pools deleted {@code event-retention} ago (and the longest gone beyond the bound); whether
     * any are still kept.
     */
    boolean forgetDeletedPoolEvents() {
        Map<String, DeletedPoolEvents> kept = new HashMap<>();
        try (KeyValueIterator<String, DeletedPoolEvents> it = stores.deletedEvents.all()) {
            it.forEachRemaining(kv -> kept.put(kv.key, kv.value));
        }
        List<String> forgotten = DeletedPoolEvents.forgotten(
                kept, clock.instant(), settings.eventRetention(), DeletedPoolEvents.MAX_DELETED_POOLS);
        forgotten.forEach(stores.deletedEvents::delete);
        return kept.size() > forgotten.size();
    }

    /** Forgets the answers to requests older than {@code request-id-retention}; whether any are still kept. */
    boolean forgetOldRequestIds() {
        Instant cutoff = clock.instant().minus(settings.requestIdRetention());
        List<String> expired = new ArrayList<>();
        try (KeyValueIterator<String, RequestDecided> it = stores.requestIds.all()) {
            while (it.hasNext()) {
                KeyValue<String, RequestDecided> kv = it.next();
                if (kv.value.decidedAt().isBefore(cutoff)) {
                    expired.add(kv.key);
                }
            }
        }
        expired.forEach(stores.requestIds::delete);
        return PoolStores.any(stores.requestIds);
    }
}
