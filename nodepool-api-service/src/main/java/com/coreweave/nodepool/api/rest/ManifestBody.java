package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.ManifestValidator;
import com.coreweave.nodepool.api.domain.ManifestValidator.FieldValidation;
import com.coreweave.nodepool.api.domain.OrgLabel;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Turns a manifest read from a body ({@link RequestBody}) into the NodePool to write: structural errors are a 422, a
 * name other than the path's a 400.
 */
final class ManifestBody {

    /** What a NodePool write's body is to be, as a 400 about it says. */
    static final String MANIFEST = "a NodePool manifest";

    private ManifestBody() {}

    /** The manifest, structurally valid, named as the path says (when the path names it). */
    static ManifestValidator.Checked checked(JsonNode manifest, String pathName, FieldValidation mode) {
        OrgLabel.strip(manifest);
        ManifestValidator.Checked checked = ManifestValidator.check(manifest, mode);
        String name = manifest.path("metadata").path("name").asText(null);
        if (!checked.causes().isEmpty()) {
            throw ApiException.invalid(NodePool.KIND, name == null ? pathName : name, checked.causes());
        }
        if (pathName != null && !pathName.equals(name)) {
            throw ApiException.badRequest(
                    "metadata.name \"" + name + "\" does not match the name in the path \"" + pathName + "\"");
        }
        return checked;
    }

    static NodePool bind(JsonNode manifest) {
        return RequestBody.bind(manifest, NodePool.class, MANIFEST);
    }

    /**
     * The user-writable part of a stored pool, as a patch applies to it: with its managed fields, which a patch may
     * replace (kubectl's managed fields migration does, {@link #takeManagedFields}).
     */
    static JsonNode writable(NodePool current) {
        ObjectNode tree = Json.mapper().valueToTree(current.withStatus(null));
        ObjectNode meta = (ObjectNode) tree.get("metadata");
        meta.remove(List.of("uid", "generation", "creationTimestamp", "deletionTimestamp"));
        return tree;
    }

    /** The {@code metadata.managedFields} of a manifest tree (null when absent), taken out of it. */
    static JsonNode takeManagedFields(JsonNode manifest) {
        return manifest.path("metadata") instanceof ObjectNode meta ? meta.remove("managedFields") : null;
    }
}
