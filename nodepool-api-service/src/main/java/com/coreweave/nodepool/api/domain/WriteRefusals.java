package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.api.kube.ResourceVersions;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import java.util.Objects;

/**
 * Why a write of a pool may not be made, as the API server says it: a precondition that does not hold, an immutable
 * field changed, a pool too large to store. Each answers null when the write may go on.
 */
final class WriteRefusals {

    private WriteRefusals() {}

    /** Why the request's preconditions ({@code resourceVersion}, {@code uid}) do not hold, or null when they do. */
    static Status precondition(ObjectMeta given, ObjectMeta stored, String name, PoolDecider.WriteContext ctx) {
        if (given == null) {
            return null;
        }
        String current = ctx.currentVersion() == null ? stored.resourceVersion() : ctx.currentVersion();
        if (given.resourceVersion() != null
                && !ResourceVersions.holds(given.resourceVersion(), stored.resourceVersion(), current)) {
            return Statuses.conflict(
                    NodePool.KIND,
                    name,
                    "the object has been modified; please apply your changes to the latest version and try again");
        }
        if (given.uid() != null && !given.uid().equals(stored.uid())) {
            return Statuses.conflict(
                    NodePool.KIND,
                    name,
                    "Precondition failed: UID in precondition: " + given.uid() + ", UID in object meta: "
                            + stored.uid());
        }
        return null;
    }

    /**
     * Why {@code spec} may not replace {@code old}: {@code instanceType} and {@code region} are immutable (a region the
     * request leaves out keeps the stored one), or null.
     */
    static Status immutable(PoolRequest request, NodePoolSpec spec, NodePoolSpec old) {
        FieldErrors immutable = new FieldErrors();
        if (!Objects.equals(spec.instanceType(), old.instanceType())) {
            immutable.add(
                    Statuses.INVALID,
                    "Invalid value: \"" + spec.instanceType() + "\": field is immutable",
                    "spec.instanceType");
        }
        String requestedRegion = request.manifest().spec().region();
        if (requestedRegion != null && !requestedRegion.equals(old.region())) {
            immutable.add(
                    Statuses.INVALID, "Invalid value: \"" + requestedRegion + "\": field is immutable", "spec.region");
        }
        return immutable.isEmpty()
                ? null
                : immutable.invalid(NodePool.KIND, request.key().pool());
    }

    /**
     * Why {@code pool}, of {@code size} bytes as measured up to the bound, is too large to store, or null. It is
     * measured as JSON, as it is written: escapes can make a value six times its UTF-8 size, so the bounds of labels
     * and annotations alone do not bound it, and managed fields grow with the fields set. The cause names the larger of
     * metadata and spec.
     */
    static Status oversized(NodePool pool, long size) {
        if (size <= Limits.MAX_POOL_BYTES) {
            return null;
        }
        long metadata = JsonSize.of(pool.metadata(), Long.MAX_VALUE);
        long spec = JsonSize.of(pool.spec(), Long.MAX_VALUE);
        return FieldErrors.one(
                        Statuses.TOO_LONG,
                        "Too long: the NodePool as stored (metadata with managedFields, and spec) must have at most "
                                + Limits.MAX_POOL_BYTES + " bytes of JSON, this one would have "
                                + JsonSize.of(pool, Long.MAX_VALUE)
                                + " (metadata " + metadata + ", spec " + spec + ")",
                        metadata >= spec ? "metadata" : "spec")
                .invalid(NodePool.KIND, pool.name());
    }
}
