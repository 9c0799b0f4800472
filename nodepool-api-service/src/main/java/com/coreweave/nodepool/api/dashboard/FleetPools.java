package com.coreweave.nodepool.api.dashboard;

import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.api.streams.StoreNames;
import com.coreweave.nodepool.kit.reads.InteractiveQueries;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Every org's pools, for operators, from the status aggregator's stores: this instance's share, and the share of every
 * other instance asked at {@link #SHARE_PATH}. Pool names repeat across orgs, so each pool comes with its org.
 */
@ApplicationScoped
public class FleetPools {

    static final String SHARE_PATH = "/dashboard/api/nodepools/share";

    /** A pool and the org it belongs to. */
    public record OrgPool(String org, NodePool pool) {}

    @Inject
    InteractiveQueries queries;

    public List<OrgPool> all() {
        List<OrgPool> all = new ArrayList<>(share());
        all.addAll(queries.fromOthers(
                StoreNames.POOL_VIEWS,
                SHARE_PATH,
                new TypeReference<List<OrgPool>>() {},
                pool -> pool.org() + "/" + pool.pool().name()));
        all.sort(Comparator.comparing(OrgPool::org).thenComparing(p -> p.pool().name()));
        return all;
    }

    /** This instance's share: the pools of its partitions that have been published. */
    public List<OrgPool> share() {
        List<PoolView> views = queries.localValues(StoreNames.POOL_VIEWS, null);
        return views.stream()
                .filter(v -> v.published() != null)
                .map(v -> new OrgPool(v.accepted().org(), v.published()))
                .toList();
    }
}
