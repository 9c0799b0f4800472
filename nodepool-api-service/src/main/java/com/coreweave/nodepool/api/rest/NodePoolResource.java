package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.ManifestValidator;
import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.api.kube.JsonPatch;
import com.coreweave.nodepool.api.kube.MergePatch;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * The NodePool resource of {@code compute.coreweave.com/v1alpha1}, as the Kubernetes API server serves a custom
 * resource: get and list (JSON or Table, label and field selectors), create, replace, patch (merge, JSON and
 * server-side apply), delete. Writes go through {@code nodepool-requested} and the pool processor ({@link PoolWrites});
 * reads come from the status aggregator's store ({@link PoolLister}). Every call is scoped to the caller's org; another
 * org's pool is a 404.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/nodepools")
@Produces(MediaType.APPLICATION_JSON)
public class NodePoolResource {

    static final String YAML = "application/yaml";
    static final String MERGE_PATCH = "application/merge-patch+json";
    static final String JSON_PATCH = "application/json-patch+json";
    static final String APPLY_PATCH = "application/apply-patch+yaml";
    static final String STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

    @Inject
    Tenancy tenancy;

    @Inject
    PoolWrites writes;

    @Inject
    PoolLister lister;

    @Inject
    Listings listings;

    @Inject
    LiveFeed feed;

    @Inject
    ServerSideApply apply;

    @GET
    public Object list(@BeanParam ListOptions options) {
        return listings.list(
                lister, options, feed.version(LiveFeed.Stream.POOLS).toString());
    }

    @GET
    @Path("/{name}")
    public Object get(@PathParam("name") String name, @BeanParam ListOptions options) {
        return listings.one(lister, lister.shown(name), options);
    }

    @POST
    @Consumes({MediaType.APPLICATION_JSON, YAML, "application/x-yaml", "text/yaml"})
    public Response create(
            String body,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type,
            @HeaderParam("Idempotency-Key") String idempotencyKey,
            @BeanParam WriteOptions options) {
        ManifestValidator.Checked checked = ManifestBody.checked(
                RequestBody.tree(body, type, ManifestBody.MANIFEST), null, options.fieldValidation());
        NodePool manifest = ManifestBody.bind(checked.manifest());
        PoolKey key = new PoolKey(tenancy.writer(), manifest.name());
        RequestDecided decided = writes.submit(
                key, Operation.CREATE, apply.recordUpdate(null, manifest, options.manager()), idempotencyKey, options);
        return options.respond(decided.code(), decided.nodePool(), checked.warnings());
    }

    @PUT
    @Path("/{name}")
    @Consumes({MediaType.APPLICATION_JSON, YAML, "application/x-yaml", "text/yaml"})
    public Response replace(
            @PathParam("name") String name,
            String body,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type,
            @BeanParam WriteOptions options) {
        JsonNode tree = RequestBody.tree(body, type, ManifestBody.MANIFEST);
        JsonNode given = ManifestBody.takeManagedFields(tree);
        ManifestValidator.Checked checked = ManifestBody.checked(tree, name, options.fieldValidation());
        NodePool manifest = ManifestBody.bind(checked.manifest());
        String precondition = manifest.metadata().resourceVersion();
        NodePool stored = writes.rewrite(
                new PoolKey(tenancy.writer(), name),
                options,
                precondition != null,
                current -> apply.recordUpdate(
                        current,
                        precondition == null
                                ? manifest.withMetadata(manifest.metadata()
                                        .withResourceVersion(current.metadata().resourceVersion()))
                                : manifest,
                        given,
                        options.manager()));
        return options.respond(200, stored, checked.warnings());
    }

    @PATCH
    @Path("/{name}")
    @Consumes({MERGE_PATCH, MediaType.APPLICATION_JSON, JSON_PATCH, APPLY_PATCH, STRATEGIC_MERGE_PATCH})
    public Response patch(
            @PathParam("name") String name,
            String body,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) MediaType type,
            @BeanParam WriteOptions options) {
        String subtype = type == null ? "" : type.getType() + "/" + type.getSubtype();
        return switch (subtype) {
            case APPLY_PATCH -> serverSideApply(name, RequestBody.tree(body, type, ManifestBody.MANIFEST), options);
            case JSON_PATCH -> patched(name, options, RequestBody.tree(body, "a NodePool patch"), JsonPatch::apply);
            case STRATEGIC_MERGE_PATCH ->
                throw new ApiException(Statuses.failure(
                        415,
                        "UnsupportedMediaType",
                        "strategic merge patch is not supported for custom resources such as "
                                + "NodePool; use a merge patch (kubectl patch --type=merge) or a JSON patch (--type=json)",
                        null));
            default ->
                patched(name, options, RequestBody.tree(body, "a NodePool patch"), (current, patch) -> {
                    if (!patch.isObject()) {
                        throw new IllegalArgumentException("a merge patch must be a JSON object");
                    }
                    return MergePatch.apply(current, patch);
                });
        };
    }

    @DELETE
    @Path("/{name}")
    public Response delete(@PathParam("name") String name, @BeanParam WriteOptions options) {
        PoolKey key = new PoolKey(tenancy.writer(), name);
        NodePool target = NodePool.of(ObjectMeta.named(name), null, null);
        return options.respond(
                200, writes.submit(key, Operation.DELETE, target, null, options).nodePool(), List.of());
    }

    /** A merge or JSON patch: applied to the pool as stored, checked like a whole manifest, then written. */
    private Response patched(String name, WriteOptions options, JsonNode patch, BinaryOperator<JsonNode> how) {
        boolean callerPrecondition = patch.path("metadata").has("resourceVersion")
                || (patch.isArray() && patch.toString().contains("/metadata/resourceVersion"));
        List<String>[] warnings = new List[] {List.of()};
        NodePool stored = writes.rewrite(new PoolKey(tenancy.writer(), name), options, callerPrecondition, current -> {
            JsonNode merged;
            try {
                merged = how.apply(ManifestBody.writable(current), patch);
            } catch (IllegalArgumentException e) {
                throw FieldErrors.one(Statuses.INVALID, "the patch cannot be applied: " + e.getMessage(), "")
                        .refusal(NodePool.KIND, name);
            }
            JsonNode given = ManifestBody.takeManagedFields(merged);
            ManifestValidator.Checked checked = ManifestBody.checked(merged, name, options.fieldValidation());
            warnings[0] = checked.warnings();
            return apply.recordUpdate(current, ManifestBody.bind(checked.manifest()), given, options.manager());
        });
        return options.respond(200, stored, warnings[0]);
    }

    private Response serverSideApply(String name, JsonNode applied, WriteOptions options) {
        OrgLabel.strip(applied);
        ManifestValidator.Checked config = ManifestValidator.check(applied, options.fieldValidation());
        // An apply configuration names only the fields its manager owns, so only what it says is checked here; the
        // merged object is checked whole below.
        List<StatusCause> named = config.causes().stream()
                .filter(c -> !c.getReason().equals(Statuses.REQUIRED))
                .toList();
        if (!named.isEmpty()) {
            throw ApiException.invalid(NodePool.KIND, name, named);
        }
        String given = config.manifest().path("metadata").path("name").asText(null);
        if (!name.equals(given)) {
            throw ApiException.badRequest(
                    "metadata.name \"" + given + "\" does not match the name in the path \"" + name + "\"");
        }
        RequestDecided decided = apply.write(new PoolKey(tenancy.writer(), name), config.manifest(), options);
        return options.respond(decided.code(), decided.nodePool(), config.warnings());
    }
}
