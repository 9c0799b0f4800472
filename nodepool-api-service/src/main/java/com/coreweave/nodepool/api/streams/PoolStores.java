package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.domain.ConditionCensus;
import com.coreweave.nodepool.api.domain.DeletedPoolEvents;
import com.coreweave.nodepool.api.domain.PlatformValidator;
import com.coreweave.nodepool.api.domain.PoolFaultPoints;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.domain.StoredSize;
import com.coreweave.nodepool.api.domain.ViewPart;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.streams.commit.FlushedOutputs;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.store.SplitValues;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.topics.Topics;
import java.time.Clock;
import java.util.Map;
import java.util.SortedMap;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * What the pool processor's parts share within one task: its stores, the catalogue, and where outputs go. Every change
 * through it commits in the task's transaction.
 */
final class PoolStores {

    /**
     * How much of the pools' views each task keeps parsed, weighed as one plus the pool's nodes and Events (each a KB
     * or so of heap): a pool's facts arrive within seconds of each other. 1,000 views of 10-node pools per task took
     * the scale run's api-service over 1.5 GiB resident; this keeps about 300 such pools, or 1,200 of one node
     * (benchmark 4 has 667 per task in flight at once), or about 20 of 240 KB annotations
     * ({@link PoolView#heapWeight}): restoring and processing an org's pools of maximum size no longer keeps them all
     * parsed.
     */
    private static final long RECENT_VIEW_WEIGHT = 11_000;

    /** A view is stored as its head and its parts (its nodes and preemptions), each under a key of its own. */
    private static final SplitValues.Shape<PoolView, PoolView, ViewPart> SHAPE = new SplitValues.Shape<>() {
        @Override
        public PoolView head(PoolView view) {
            return view.head();
        }

        @Override
        public Map<String, ViewPart> members(PoolView view) {
            return view.parts();
        }

        @Override
        public PoolView join(PoolView head, SortedMap<String, ViewPart> parts) {
            return PoolView.joined(head, parts);
        }
    };

    final SplitValues<PoolView, PoolView, ViewPart> views;
    final KeyValueStore<String, DeletedPoolEvents> deletedEvents;
    final KeyValueStore<String, RequestDecided> requestIds;
    final KeyValueStore<String, String> unvalidated;
    final PoolCounts counts;
    final PoolConditions conditions;
    private final TimestampedKeyValueStore<String, InstanceType> catalogue;
    private final ProcessorContext<String, Outbound> context;
    private final FlushedOutputs<Outbound> statuses;
    private final Clock clock;
    final InjectedFaults faults;
    private boolean catalogueSeen;
    /** Told when there is something to sweep or judge again: the sweeps tick only while there is (one commit each). */
    private Runnable onUnvalidated = () -> {};

    private Runnable onRequestRemembered = () -> {};
    private Runnable onDeletedPoolEventsKept = () -> {};

    PoolStores(
            ProcessorContext<String, Outbound> context,
            int partitions,
            Clock clock,
            ConditionCensus census,
            InjectedFaults faults) {
        this.context = context;
        this.clock = clock;
        this.faults = faults;
        views = new SplitValues<>(
                context.getStateStore(StoreNames.POOL_VIEWS),
                context.getStateStore(StoreNames.POOL_VIEW_PARTS),
                SHAPE,
                RECENT_VIEW_WEIGHT,
                PoolView::heapWeight);
        deletedEvents = context.getStateStore(StoreNames.DELETED_POOL_EVENTS);
        requestIds = context.getStateStore(StoreNames.REQUEST_IDS);
        unvalidated = context.getStateStore(StoreNames.UNVALIDATED);
        catalogue = context.getStateStore(StoreNames.INSTANCE_TYPES);
        counts = new PoolCounts(
                context.getStateStore(StoreNames.ORG_POOLS),
                context.getStateStore(StoreNames.ORG_POOL_COUNTS),
                context.taskId().partition(),
                partitions,
                this::emit);
        counts.countOnce(views.heads().all(), view -> StoredSize.counted(view.accepted()));
        conditions = new PoolConditions(context.getStateStore(StoreNames.POOL_CONDITIONS), census);
        // A pool's status changes with most facts, often several times within one commit (a node's assignment and its
        // registration arrive together): only the last status of each commit is published.
        statuses = FlushedOutputs.of(context, views.heads());
    }

    ProcessorContext<String, Outbound> context() {
        return context;
    }

    void emit(String key, Outbound outbound) {
        context.forward(new Record<>(key, outbound, clock.millis()));
    }

    /**
     * Publishes pool {@code key} as accepted, and its demand to the quota it draws on, keyed by that quota so that the
     * quota's ledger reads it without re-keying: the quota-service is a hop nearer.
     */
    void publishAccepted(String key, NodePoolAccepted accepted) {
        emit(key, Outbound.to(Topics.NODEPOOL_ACCEPTED, accepted));
        QuotaDemanded demand = QuotaDemanded.of(accepted);
        emit(demand.quotaKey().toString(), Outbound.to(Topics.QUOTA_DEMANDED, demand));
    }

    /** The pool is gone: its accepted tombstone, and its incarnation's departure from the quota it drew on. */
    void publishGone(String key, NodePoolAccepted last) {
        QuotaDemanded gone = QuotaDemanded.gone(PoolRef.of(last.inForce()));
        emit(gone.quotaKey().toString(), Outbound.to(Topics.QUOTA_DEMANDED, gone));
        emit(key, Outbound.tombstone(Topics.NODEPOOL_ACCEPTED));
    }

    /**
     * Publishes {@code status} of pool {@code key} with the commit that stores its view, unless a newer one is held.
     */
    void publishAtCommit(String key, Outbound status) {
        statuses.hold(new Record<>(key, status, clock.millis()));
    }

    /** Publishes the status held for pool {@code key} now, before an output that must follow it. */
    void publishHeldStatus(String key) {
        statuses.forwardNow(key);
    }

    /** The platform's verdict on pool {@code key}'s spec, against the capacity-service's catalogue. */
    PlatformValidator.Verdict judge(String key, NodePoolSpec spec) {
        PlatformValidator.Verdict injected =
                PoolFaultPoints.validation(faults, PoolKey.parse(key), spec, clock.instant());
        if (injected != null) {
            return injected;
        }
        return PlatformValidator.judge(
                spec,
                type -> {
                    ValueAndTimestamp<InstanceType> entry = catalogue.get(type);
                    return entry == null ? null : entry.value();
                },
                catalogueLoaded());
    }

    /**
     * Whether the capacity-service has published the catalogue (an estimate of the entries may say 0 too early). Once
     * seen, it is not looked for again: opening an iterator on every request cost a quarter of deciding one.
     */
    private boolean catalogueLoaded() {
        if (!catalogueSeen) {
            try (var entries = catalogue.all()) {
                catalogueSeen = entries.hasNext();
            }
        }
        return catalogueSeen;
    }

    /**
     * Pools whose spec is not valid are judged again until it is (the catalogue may arrive or change). A pool is
     * forgotten only if it is there: a delete writes a tombstone to the changelog even for a key the store lacks.
     */
    void trackValidation(String key, NodePoolAccepted accepted) {
        if (accepted.validation().valid() || accepted.deleting()) {
            forgetUnvalidated(key);
        } else {
            unvalidated.put(key, "");
            onUnvalidated.run();
        }
    }

    void onUnvalidated(Runnable listener) {
        onUnvalidated = listener;
    }

    void onRequestRemembered(Runnable listener) {
        onRequestRemembered = listener;
    }

    void onDeletedPoolEventsKept(Runnable listener) {
        onDeletedPoolEventsKept = listener;
    }

    /** Remembers a request's answer, so that the same request id sent again gets it again. */
    void rememberRequest(String requestKey, RequestDecided answer) {
        requestIds.put(requestKey, answer);
        onRequestRemembered.run();
    }

    /** Keeps a deleted pool's Events, as Kubernetes keeps an object's Events after it is deleted. */
    void keepDeletedPoolEvents(String key, DeletedPoolEvents events) {
        deletedEvents.put(key, events);
        onDeletedPoolEventsKept.run();
    }

    static boolean any(KeyValueStore<String, ?> store) {
        try (KeyValueIterator<String, ?> it = store.all()) {
            return it.hasNext();
        }
    }

    boolean anyUnvalidated() {
        return any(unvalidated);
    }

    void forgetUnvalidated(String key) {
        if (unvalidated.get(key) != null) {
            unvalidated.delete(key);
        }
    }
}
