package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.domain.DeletedPoolEvents;
import com.coreweave.nodepool.api.domain.EventFolder;
import com.coreweave.nodepool.api.domain.NodeEventsOnPool;
import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.PoolViewReducer;
import com.coreweave.nodepool.api.domain.StatusProjector;
import com.coreweave.nodepool.api.domain.StoredSize;
import com.coreweave.nodepool.api.kube.ResourceVersions;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Instant;

/**
 * Status aggregation: folds the other services' facts into each pool's view ({@link PoolViewReducer}), publishes the
 * resource on {@code nodepool-status} when its projection changes ({@link StatusProjector}; the last change of each
 * commit), folds recorded events into Kubernetes Events on {@code nodepool-events} ({@link EventFolder}; a node event
 * the reference lists under "Node, NodePool" also on the pool, {@link NodeEventsOnPool}), and deletes a deleting pool
 * once its nodes are gone, keeping its Events for a while ({@link DeletedPoolEvents}).
 */
final class StatusAggregation {

    private final PoolStores stores;

    StatusAggregation(PoolStores stores) {
        this.stores = stores;
    }

    void onFact(String key, Object fact, Instant now) {
        PoolView view = stores.views.get(key);
        if (view == null) {
            return;
        }
        PoolView updated = PoolViewReducer.apply(view, fact, now);
        if (updated == view) {
            return;
        }
        publish(key, updated, now);
        finalizeIfRemoved(key, updated, now);
    }

    void onEvent(String key, RecordedEvent recorded) {
        PoolView view = stores.views.get(key);
        if (view == null || !view.uid().equals(recorded.poolUid())) {
            return;
        }
        PoolEvents events = fold(key, view.events(), recorded);
        RecordedEvent copy = NodeEventsOnPool.poolCopy(recorded);
        if (copy != null) {
            events = fold(key, events, copy);
        }
        if (events != view.events()) {
            stores.views.put(key, view.withEvents(events));
        }
    }

    /** {@code events} with {@code recorded} folded in, the Event it made or changed published. */
    private PoolEvents fold(String key, PoolEvents events, RecordedEvent recorded) {
        EventFolder.Folded folded = EventFolder.fold(events, recorded);
        if (folded.changed() == null) {
            return events;
        }
        stores.emit(key, Outbound.to(Topics.NODEPOOL_EVENTS, folded.changed()));
        return folded.events();
    }

    /**
     * Stores the view and publishes the resource, with the commit, when its projection changed. A change gets the
     * version of the write that made it, or, when only the status changed, a version of its own, so every change a
     * watch sees is versioned.
     */
    void publish(String key, PoolView view, Instant now) {
        NodePool projected = StatusProjector.project(view, now);
        NodePool previous = view.published();
        String written = projected.metadata().resourceVersion();
        NodePool published;
        if (previous == null
                || ResourceVersions.after(written, previous.metadata().resourceVersion())) {
            published = projected;
        } else {
            String last = previous.metadata().resourceVersion();
            published = versioned(projected, last).equals(previous)
                    ? null
                    : versioned(projected, ResourceVersions.next(last, now));
        }
        stores.views.put(key, published == null ? view : view.withPublished(published));
        if (published != null) {
            stores.publishAtCommit(key, Outbound.to(Topics.NODEPOOL_STATUS, published));
            stores.conditions.published(key, published);
        }
    }

    private static NodePool versioned(NodePool pool, String version) {
        return pool.withMetadata(pool.metadata().withResourceVersion(version));
    }

    /** A deleting pool whose nodes are all gone is deleted: last status, CWNodePoolDeleted, then tombstones. */
    private void finalizeIfRemoved(String key, PoolView view, Instant now) {
        var reconciled = view.reconciled();
        if (!view.accepted().deleting()
                || reconciled == null
                || !reconciled.nodesRemoved()
                || !view.nodes().isEmpty()) {
            return;
        }
        stores.publishHeldStatus(key);
        PoolRef ref = PoolRef.of(view.accepted());
        onEvent(
                key,
                RecordedEvent.ofPool(
                        ref,
                        CwEvent.CWNodePoolDeleted,
                        "NodePool " + ref.pool() + " deleted.",
                        ref.uid(),
                        ApiTopology.SERVICE,
                        now));
        PoolView last = stores.views.get(key);
        stores.keepDeletedPoolEvents(DeletedPoolEvents.key(key, ref.uid()), DeletedPoolEvents.of(last.events(), now));
        stores.emit(key, Outbound.tombstone(Topics.NODEPOOL_STATUS));
        stores.publishGone(key, view.accepted());
        stores.views.delete(key);
        stores.conditions.gone(key);
        stores.forgetUnvalidated(key);
        stores.counts.gone(view.accepted().org(), StoredSize.counted(view.accepted()));
    }
}
