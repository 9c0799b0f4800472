package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.api.kube.NodePoolTable;
import com.coreweave.nodepool.api.kube.TableConvertor;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * NodePools as lists and watches show them, from the status aggregator's store ({@link PoolReads}): scoped to the
 * caller's org, or every org's for an operator with each pool's org in a label.
 */
@ApplicationScoped
class PoolLister implements Lister<NodePool> {

    private static final TableConvertor<NodePool> TABLE = new NodePoolTable();

    @Inject
    Tenancy tenancy;

    @Inject
    PoolReads reads;

    @Inject
    LiveFeed feed;

    /**
     * A pool the caller may read, as shown to them (an operator reads every org; the first org that has it wins, its
     * org in a label). Only the published resource is read from the pool's view.
     */
    NodePool shown(String name) {
        String scope = tenancy.readScope();
        if (scope != null) {
            return reads.published(new PoolKey(scope, name))
                    .orElseThrow(() -> ApiException.notFound(NodePool.KIND, name));
        }
        return reads.publishedPage(null, null, Integer.MAX_VALUE).entrySet().stream()
                .filter(e -> PoolKey.parse(e.getKey()).pool().equals(name))
                .map(e -> OrgLabel.shown(e.getValue(), PoolKey.parse(e.getKey()).org()))
                .findFirst()
                .orElseThrow(() -> ApiException.notFound(NodePool.KIND, name));
    }

    /** A pool as a Kubernetes object of the watch stream. */
    static KubernetesResource asResource(NodePool pool) {
        return Json.mapper().convertValue(pool, GenericKubernetesResource.class);
    }

    @Override
    public List<NodePool> objects(ListOptions options) {
        String scope = tenancy.readScope();
        return reads.publishedPage(scope, null, Integer.MAX_VALUE).entrySet().stream()
                .map(e -> scope != null
                        ? e.getValue()
                        : OrgLabel.shown(e.getValue(), PoolKey.parse(e.getKey()).org()))
                .sorted(Comparator.comparing(NodePool::name))
                .toList();
    }

    @Override
    public Map<String, String> labels(NodePool pool) {
        return pool.metadata().labels() == null ? Map.of() : pool.metadata().labels();
    }

    @Override
    public Map<String, String> fields(NodePool pool) {
        return Map.of("metadata.name", pool.name(), "metadata.namespace", "");
    }

    @Override
    public Set<String> selectableFields() {
        return Set.of("metadata.name", "metadata.namespace");
    }

    @Override
    public Object metadata(NodePool pool) {
        return pool.metadata();
    }

    @Override
    public Object listOf(List<NodePool> items, String resourceVersion, String continueToken) {
        Map<String, String> metadata = new TreeMap<>(Map.of("resourceVersion", resourceVersion));
        if (continueToken != null) {
            metadata.put("continue", continueToken);
        }
        return new NodePoolList(NodePool.API_VERSION, "NodePoolList", metadata, items);
    }

    /** A pool's key in the store (org/name), which a list is ordered and continued by. */
    @Override
    public String key(NodePool pool) {
        String scope = tenancy.readScope();
        return scope == null ? OrgLabel.identity(pool) : new PoolKey(scope, pool.name()).toString();
    }

    /** A page read from the stores with one range scan per partition after the continue key: O(page), not O(pools). */
    @Override
    public Page<NodePool> page(ListOptions options, Predicate<NodePool> selected, String after, int limit) {
        String scope = tenancy.readScope();
        return reads.poolsPage(
                scope,
                pool -> scope != null
                        ? pool.getValue()
                        : OrgLabel.shown(
                                pool.getValue(), PoolKey.parse(pool.getKey()).org()),
                selected,
                after,
                limit);
    }

    @Override
    public boolean resumable(String version) {
        return feed.resumable(LiveFeed.Stream.POOLS, version);
    }

    @Override
    public TableConvertor<NodePool> table() {
        return TABLE;
    }
}
