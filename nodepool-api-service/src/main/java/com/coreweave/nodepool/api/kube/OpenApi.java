package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The OpenAPI documents of the NodePool API, built from the CustomResourceDefinition's schema as the API server builds
 * them for a custom resource: v3 (what {@code kubectl explain} reads, and where {@code kubectl apply} learns that the
 * server validates fields itself) and v2. Both carry the schema's descriptions, so explain prints the reference's
 * words.
 */
public final class OpenApi {

    public static final String GROUP_VERSION_PATH =
            "apis/" + NodePoolDefinition.GROUP + "/" + NodePoolDefinition.VERSION;
    private static final String PREFIX = "com.coreweave.compute." + NodePoolDefinition.VERSION + ".";
    private static final String META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
    private static final String SCALE = "io.k8s.api.autoscaling.v1.Scale";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private static final ObjectNode V3 = v3Document();
    private static final String V3_HASH = hash(V3);
    private static final ObjectNode V2 = v2Document();

    private OpenApi() {}

    /** The v3 index: where each group version's document is, with a hash clients cache it by. */
    public static ObjectNode v3Index() {
        ObjectNode index = F.objectNode();
        index.putObject("paths")
                .putObject(GROUP_VERSION_PATH)
                .put("serverRelativeURL", "/openapi/v3/" + GROUP_VERSION_PATH + "?hash=" + V3_HASH);
        return index;
    }

    public static ObjectNode v3() {
        return V3.deepCopy();
    }

    public static ObjectNode v2() {
        return V2.deepCopy();
    }

    private static ObjectNode v3Document() {
        ObjectNode doc = F.objectNode().put("openapi", "3.0.0");
        doc.putObject("info").put("title", "Kubernetes").put("version", "v1." + Discovery.KUBERNETES_MINOR + ".0");
        ObjectNode paths = doc.putObject("paths");
        operations(paths, "#/components/schemas/", true);
        ObjectNode schemas = doc.putObject("components").putObject("schemas");
        schemas(schemas, "#/components/schemas/");
        return doc;
    }

    private static ObjectNode v2Document() {
        ObjectNode doc = F.objectNode().put("swagger", "2.0");
        doc.putObject("info").put("title", "Kubernetes").put("version", "v1." + Discovery.KUBERNETES_MINOR + ".0");
        operations(doc.putObject("paths"), "#/definitions/", false);
        schemas(doc.putObject("definitions"), "#/definitions/");
        return doc;
    }

    private static void schemas(ObjectNode schemas, String ref) {
        ObjectNode pool = Json.mapper().valueToTree(NodePoolDefinition.schema());
        ObjectNode metadata = (ObjectNode) pool.with("properties").get("metadata");
        metadata.removeAll();
        metadata.put("description", "Standard object's metadata.").put("$ref", ref + META + "ObjectMeta");
        pool.set("x-kubernetes-group-version-kind", gvks("NodePool"));
        schemas.set(PREFIX + "NodePool", pool);

        ObjectNode list = schemas.putObject(PREFIX + "NodePoolList")
                .put("type", "object")
                .put("description", "NodePoolList is a list of NodePool");
        list.putArray("required").add("items");
        ObjectNode listProps = list.putObject("properties");
        listProps.putObject("apiVersion").put("type", "string");
        listProps.putObject("kind").put("type", "string");
        listProps.putObject("metadata").put("$ref", ref + META + "ListMeta");
        listProps.putObject("items").put("type", "array").putObject("items").put("$ref", ref + PREFIX + "NodePool");
        list.set("x-kubernetes-group-version-kind", gvks("NodePoolList"));

        ObjectNode meta = schemas.putObject(META + "ObjectMeta")
                .put("type", "object")
                .put("description", "ObjectMeta is metadata that all persisted resources must have.");
        ObjectNode metaProps = meta.putObject("properties");
        string(metaProps, "name", "Name must be unique within the org; a DNS subdomain.");
        string(metaProps, "uid", "UID is the unique in time and space value for this object. Set by the server.");
        string(
                metaProps,
                "resourceVersion",
                "An opaque value that changes whenever the object changes; a write "
                        + "that names it succeeds only against that version.");
        metaProps
                .putObject("generation")
                .put("type", "integer")
                .put("format", "int64")
                .put("description", "A sequence number representing a specific generation of the desired state.");
        string(metaProps, "creationTimestamp", "When this object was created.").put("format", "date-time");
        string(metaProps, "deletionTimestamp", "When this object began to be deleted.")
                .put("format", "date-time");
        stringMap(metaProps, "labels", "Map of string keys and values to organize and select objects.");
        stringMap(metaProps, "annotations", "Map of string keys and values to store arbitrary metadata.");
        metaProps
                .putObject("managedFields")
                .put("type", "array")
                .put("description", "Which field manager set which fields (server-side apply).")
                .putObject("items")
                .put("type", "object");

        ObjectNode listMeta = schemas.putObject(META + "ListMeta").put("type", "object");
        string(listMeta.putObject("properties"), "resourceVersion", "The version a watch of this list starts from.");

        ObjectNode scale = schemas.putObject(SCALE)
                .put("type", "object")
                .put(
                        "description",
                        "Scale represents a scaling request for a resource: spec.replicas is the NodePool's spec.targetNodes.");
        ObjectNode scaleProps = scale.putObject("properties");
        scaleProps.putObject("apiVersion").put("type", "string");
        scaleProps.putObject("kind").put("type", "string");
        scaleProps.putObject("metadata").put("$ref", ref + META + "ObjectMeta");
        scaleProps
                .putObject("spec")
                .put("type", "object")
                .putObject("properties")
                .putObject("replicas")
                .put("type", "integer")
                .put("format", "int32")
                .put("description", "desired number of nodes")
                .put("minimum", 0)
                .put("maximum", Limits.MAX_TARGET_NODES);
        scaleProps
                .putObject("status")
                .put("type", "object")
                .putObject("properties")
                .putObject("replicas")
                .put("type", "integer")
                .put("format", "int32")
                .put("description", "actual number of nodes");
        ArrayNode scaleGvk = scale.putArray("x-kubernetes-group-version-kind");
        scaleGvk.addObject().put("group", "autoscaling").put("kind", "Scale").put("version", "v1");
    }

    /** The operations of the pools and their scale subresource, with the query parameters kubectl looks for. */
    private static void operations(ObjectNode paths, String ref, boolean v3) {
        String base = "/" + GROUP_VERSION_PATH + "/nodepools";
        ObjectNode collection = paths.putObject(base);
        collection.set("get", operation("list", "NodePool", ref + PREFIX + "NodePoolList", null, List.of(), v3));
        collection.set(
                "post",
                operation(
                        "post",
                        "NodePool",
                        ref + PREFIX + "NodePool",
                        List.of("application/json", "application/yaml"),
                        List.of("dryRun", "fieldManager", "fieldValidation"),
                        v3));
        ObjectNode item = paths.putObject(base + "/{name}");
        item.putArray("parameters")
                .add(F.objectNode()
                        .put("name", "name")
                        .put("in", "path")
                        .put("required", true)
                        .put("description", "name of the NodePool")
                        .set("schema", F.objectNode().put("type", "string")));
        item.set("get", operation("get", "NodePool", ref + PREFIX + "NodePool", null, List.of(), v3));
        item.set(
                "put",
                operation(
                        "put",
                        "NodePool",
                        ref + PREFIX + "NodePool",
                        List.of("application/json", "application/yaml"),
                        List.of("dryRun", "fieldManager", "fieldValidation"),
                        v3));
        item.set(
                "patch",
                operation(
                        "patch",
                        "NodePool",
                        ref + PREFIX + "NodePool",
                        List.of(
                                "application/json-patch+json",
                                "application/merge-patch+json",
                                "application/apply-patch+yaml"),
                        List.of("dryRun", "fieldManager", "fieldValidation", "force"),
                        v3));
        item.set("delete", operation("delete", "NodePool", ref + PREFIX + "NodePool", null, List.of("dryRun"), v3));
        ObjectNode scale = paths.putObject(base + "/{name}/scale");
        scale.set("parameters", item.get("parameters").deepCopy());
        scale.set("get", operation("get", "Scale", ref + SCALE, null, List.of(), v3));
        scale.set(
                "put",
                operation(
                        "put",
                        "Scale",
                        ref + SCALE,
                        List.of("application/json"),
                        List.of("dryRun", "fieldManager", "fieldValidation"),
                        v3));
        scale.set(
                "patch",
                operation(
                        "patch",
                        "Scale",
                        ref + SCALE,
                        List.of("application/json-patch+json", "application/merge-patch+json"),
                        List.of("dryRun", "fieldManager", "fieldValidation", "force"),
                        v3));
    }

    private static ObjectNode operation(
            String action, String kind, String schema, List<String> bodyTypes, List<String> parameters, boolean v3) {
        ObjectNode op = F.objectNode();
        op.put("operationId", action + kind);
        ArrayNode params = op.putArray("parameters");
        for (String name : parameters) {
            ObjectNode p =
                    params.addObject().put("name", name).put("in", "query").put("uniqueItems", true);
            if (v3) {
                p.putObject("schema").put("type", name.equals("force") ? "boolean" : "string");
            } else {
                p.put("type", name.equals("force") ? "boolean" : "string");
            }
        }
        if (bodyTypes != null && v3) {
            ObjectNode content =
                    op.putObject("requestBody").put("required", true).putObject("content");
            bodyTypes.forEach(t -> content.putObject(t).putObject("schema").put("$ref", schema));
        } else if (bodyTypes != null) {
            params.addObject()
                    .put("name", "body")
                    .put("in", "body")
                    .put("required", true)
                    .putObject("schema")
                    .put("$ref", schema);
            op.set("consumes", Json.mapper().valueToTree(bodyTypes));
        }
        ObjectNode ok = op.putObject("responses")
                .putObject(action.equals("post") ? "201" : "200")
                .put("description", "OK");
        if (v3) {
            ok.putObject("content")
                    .putObject("application/json")
                    .putObject("schema")
                    .put("$ref", schema);
        } else {
            ok.putObject("schema").put("$ref", schema);
        }
        op.put("x-kubernetes-action", action);
        op.putObject("x-kubernetes-group-version-kind")
                .put("group", kind.equals("Scale") ? "autoscaling" : NodePoolDefinition.GROUP)
                .put("version", kind.equals("Scale") ? "v1" : NodePoolDefinition.VERSION)
                .put("kind", kind);
        return op;
    }

    private static ArrayNode gvks(String kind) {
        ArrayNode gvks = F.arrayNode();
        gvks.addObject()
                .put("group", NodePoolDefinition.GROUP)
                .put("kind", kind)
                .put("version", NodePoolDefinition.VERSION);
        return gvks;
    }

    private static ObjectNode string(ObjectNode properties, String name, String description) {
        return properties.putObject(name).put("type", "string").put("description", description);
    }

    private static void stringMap(ObjectNode properties, String name, String description) {
        properties
                .putObject(name)
                .put("type", "object")
                .put("description", description)
                .putObject("additionalProperties")
                .put("type", "string");
    }

    private static String hash(JsonNode document) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-512").digest(Json.bytes(document));
            return HexFormat.of().withUpperCase().formatHex(digest, 0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
