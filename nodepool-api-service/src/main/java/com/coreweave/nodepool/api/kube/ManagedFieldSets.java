package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sets of managed fields, each field a path of names: read from and written as a manager's FieldsV1, found as the
 * leaves of a manifest tree, set in and removed from one.
 */
final class ManagedFieldSets {

    private ManagedFieldSets() {}

    /** Every managed field of a manifest tree with its value: the leaves under spec, labels and annotations. */
    static Map<List<String>, JsonNode> leaves(JsonNode manifest) {
        Map<List<String>, JsonNode> leaves = new LinkedHashMap<>();
        collect(manifest.path("spec"), List.of("spec"), leaves);
        collect(manifest.path("metadata").path("labels"), List.of("metadata", "labels"), leaves);
        collect(manifest.path("metadata").path("annotations"), List.of("metadata", "annotations"), leaves);
        return leaves;
    }

    private static void collect(JsonNode node, List<String> path, Map<List<String>, JsonNode> leaves) {
        if (node.isMissingNode() || node.isNull()) {
            return;
        }
        if (!node.isObject()) {
            leaves.put(path, node);
            return;
        }
        node.fields().forEachRemaining(e -> {
            List<String> child = new ArrayList<>(path);
            child.add(e.getKey());
            collect(e.getValue(), child, leaves);
        });
    }

    static void set(ObjectNode root, List<String> field, JsonNode value) {
        ObjectNode parent = root;
        for (String part : field.subList(0, field.size() - 1)) {
            parent = parent.get(part) instanceof ObjectNode o ? o : parent.putObject(part);
        }
        parent.set(field.get(field.size() - 1), value.deepCopy());
    }

    static void remove(ObjectNode root, List<String> field) {
        JsonNode parent = root;
        for (String part : field.subList(0, field.size() - 1)) {
            parent = parent.path(part);
        }
        if (parent instanceof ObjectNode o) {
            o.remove(field.get(field.size() - 1));
        }
    }

    static ManagedFieldsEntry find(List<ManagedFieldsEntry> entries, String manager, String operation) {
        return entries.stream()
                .filter(e -> e.manager().equals(manager) && e.operation().equals(operation))
                .findFirst()
                .orElse(null);
    }

    static void add(List<ManagedFieldsEntry> into, ManagedFieldsEntry entry, Set<List<String>> fields) {
        if (!fields.isEmpty()) {
            into.add(
                    fields.equals(fields(entry))
                            ? entry
                            : entry(entry.manager(), entry.operation(), entry.time(), fields));
        }
    }

    static ManagedFieldsEntry entry(String manager, String operation, Instant time, Set<List<String>> fields) {
        return new ManagedFieldsEntry(
                manager, operation, NodePool.API_VERSION, time, ManagedFieldsEntry.FIELDS_V1, fieldsV1(fields));
    }

    /** A set of fields in Kubernetes' FieldsV1 form: nested {@code "f:<name>"} keys, leaves as {@code {}}. */
    static ObjectNode fieldsV1(Set<List<String>> fields) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        for (List<String> field : fields) {
            ObjectNode node = root;
            for (String part : field) {
                node = node.get("f:" + part) instanceof ObjectNode o ? o : node.putObject("f:" + part);
            }
        }
        return root;
    }

    static Set<List<String>> fields(ManagedFieldsEntry entry) {
        Set<List<String>> fields = new LinkedHashSet<>();
        if (entry.fieldsV1() != null) {
            walk(entry.fieldsV1(), new ArrayList<>(), fields);
        }
        return fields;
    }

    private static void walk(JsonNode node, List<String> path, Set<List<String>> fields) {
        if (node.isEmpty() && !path.isEmpty()) {
            fields.add(List.copyOf(path));
            return;
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (key.startsWith("f:")) {
                path.add(key.substring(2));
                walk(node.get(key), path, fields);
                path.remove(path.size() - 1);
            }
        }
    }

    static String dotted(List<String> field) {
        StringBuilder out = new StringBuilder();
        for (String part : field) {
            out.append(part.matches("[A-Za-z0-9_]+") ? "." + part : "[" + part + "]");
        }
        return out.toString();
    }
}
