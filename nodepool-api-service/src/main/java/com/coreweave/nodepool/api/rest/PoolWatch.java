package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.WatchEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.UnicastProcessor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One Kubernetes-style watch of an org's pools: {@code ADDED} for every pool that exists when it starts, then
 * {@code ADDED} / {@code MODIFIED} / {@code DELETED} as {@code nodepool-status} changes. Changes that arrive while
 * the initial list is read are held back and replayed after it, so no change is lost or reordered before its pool.
 */
final class PoolWatch {

  private final Predicate<NodePool> filter;
  private final UnicastProcessor<WatchEvent<NodePool>> out = UnicastProcessor.create();
  private final Set<String> known = new HashSet<>();
  private List<LiveFeed.PoolChange> heldBack = new ArrayList<>();

  private PoolWatch(Predicate<NodePool> filter) {
    this.filter = filter;
  }

  /** Starts watching: subscribe to the feed first, then read the current pools, then stream. */
  static Multi<WatchEvent<NodePool>> start(LiveFeed feed, String org, Predicate<NodePool> filter,
                                           Supplier<List<NodePool>> current) {
    PoolWatch watch = new PoolWatch(filter);
    Runnable stop = feed.watchPools(org, watch::onChange);
    List<NodePool> initial = current.get();
    watch.begin(initial);
    return watch.out.onTermination().invoke(stop).onCancellation().invoke(stop);
  }

  private synchronized void begin(List<NodePool> initial) {
    for (NodePool pool : initial) {
      if (filter.test(pool)) {
        known.add(pool.name());
        out.onNext(new WatchEvent<>(WatchEvent.ADDED, pool));
      }
    }
    List<LiveFeed.PoolChange> replay = heldBack;
    heldBack = null;
    replay.forEach(this::emit);
  }

  private synchronized void onChange(LiveFeed.PoolChange change) {
    if (heldBack != null) {
      heldBack.add(change);
    } else {
      emit(change);
    }
  }

  private void emit(LiveFeed.PoolChange change) {
    String name = change.key().pool();
    if (change.pool() == null) {
      if (known.remove(name)) {
        out.onNext(new WatchEvent<>(WatchEvent.DELETED, NodePool.of(ObjectMeta.named(name), null, null)));
      }
      return;
    }
    if (!filter.test(change.pool())) {
      if (known.remove(name)) {
        out.onNext(new WatchEvent<>(WatchEvent.DELETED, change.pool()));
      }
      return;
    }
    String type = known.add(name) ? WatchEvent.ADDED : WatchEvent.MODIFIED;
    out.onNext(new WatchEvent<>(type, change.pool()));
  }
}
