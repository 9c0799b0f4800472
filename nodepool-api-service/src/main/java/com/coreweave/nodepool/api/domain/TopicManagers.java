package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.api.kube.FieldOwnership;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The managers after a topic request: an org topic's record is its org's principal's ({@code tenant-<org>}, whom the
 * broker authenticated), an update of the fields it changed, as Kubernetes records a write's manager; a record of the
 * shared topic (a service's own, e.g. the autoscaler's) changes no manager.
 */
final class TopicManagers {

    private TopicManagers() {}

    static List<ManagedFieldsEntry> after(PoolRequest request, NodePool current, NodePool next, Instant now) {
        List<ManagedFieldsEntry> stored =
                current == null ? null : current.metadata().managedFields();
        if (request.tenantOrg() == null) {
            return stored;
        }
        return FieldOwnership.update(
                current == null ? null : Json.mapper().valueToTree(current.withStatus(null)),
                stored,
                Json.mapper().valueToTree(next.withStatus(null)),
                TenantTopics.principal(request.tenantOrg()),
                now.truncatedTo(ChronoUnit.SECONDS));
    }

    /** The managers after the request's metadata and {@code spec} replace those of {@code current}. */
    static List<ManagedFieldsEntry> afterUpdate(PoolRequest request, NodePool current, NodePoolSpec spec, Instant now) {
        ObjectMeta stored = current.metadata();
        ObjectMeta given = request.manifest().metadata();
        return after(
                request,
                current,
                NodePool.of(
                        new ObjectMeta(
                                request.key().pool(),
                                stored.uid(),
                                stored.generation(),
                                stored.resourceVersion(),
                                stored.creationTimestamp(),
                                null,
                                given.labels(),
                                given.annotations(),
                                stored.managedFields()),
                        spec,
                        null),
                now);
    }
}
