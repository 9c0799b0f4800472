package com.coreweave.nodepool.api.rest;

import static com.coreweave.nodepool.kit.kafka.InteractiveQueries.segment;

import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.streams.StoreNames;
import com.coreweave.nodepool.kit.kafka.InteractiveQueries;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads pools from the status aggregator's stores: the instance that holds a pool's partition answers from its
 * store, any other forwards the read to it, so every instance answers for every pool; lists ask every instance.
 */
@ApplicationScoped
public class PoolReads {

  @Inject
  InteractiveQueries queries;

  public Optional<PoolView> view(PoolKey key, String authorization) {
    return queries.get(StoreNames.POOL_VIEWS, key.toString(),
        "/internal/pool-views/" + segment(key.org()) + "/" + segment(key.pool()), authorization, PoolView.class);
  }

  public Optional<PoolEvents> events(PoolKey key, String authorization) {
    return queries.get(StoreNames.POOL_EVENTS, key.toString(),
        "/internal/pool-events/" + segment(key.org()) + "/" + segment(key.pool()), authorization, PoolEvents.class);
  }

  /** Every pool of {@code org}, from all instances. */
  public List<PoolView> views(String org, String authorization) {
    List<PoolView> all = new ArrayList<>(localViews(org));
    all.addAll(queries.fromOthers(StoreNames.POOL_VIEWS, "/internal/pool-views/" + segment(org), authorization,
        new TypeReference<List<PoolView>>() { }));
    return all;
  }

  public Optional<PoolView> localView(PoolKey key) {
    return queries.localGet(StoreNames.POOL_VIEWS, key.toString());
  }

  public Optional<PoolEvents> localEvents(PoolKey key) {
    return queries.localGet(StoreNames.POOL_EVENTS, key.toString());
  }

  public List<PoolView> localViews(String org) {
    return queries.localValues(StoreNames.POOL_VIEWS, PoolKey.orgPrefix(org));
  }
}
