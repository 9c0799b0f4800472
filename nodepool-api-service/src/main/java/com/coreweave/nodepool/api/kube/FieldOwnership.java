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
 * Server-side apply's field ownership, as Kubernetes keeps it in {@code metadata.managedFields}: each field of
 * {@code spec}, {@code metadata.labels} and {@code metadata.annotations} is owned by the managers that set it. An apply
 * sets the fields its configuration names, removes those it named before and no longer does (unless another manager
 * owns them), and conflicts when it would change a field another manager owns, unless forced. Any other write (create,
 * replace, patch, scale) takes over the fields it changes. Lists are atomic, as in a CRD without list-type markers;
 * every other value is one field.
 */
public final class FieldOwnership {

    private static final String API_VERSION = NodePool.API_VERSION;
    /** Field managers a client may set at once; the API server itself keeps at most a few per object. */
    static final int MAX_GIVEN_ENTRIES = 32;
    /** The API server's limit on a field manager's name. */
    static final int MAX_MANAGER_CHARS = 128;

    private FieldOwnership() {}

    /** A field the apply would change although another manager owns it. */
    public record Conflict(String manager, String field) {

        public String message() {
            return "conflict with \"" + manager + "\" using " + API_VERSION;
        }
    }

    /** The apply conflicts; nothing was changed. */
    public static final class Conflicts extends RuntimeException {

        private final transient List<Conflict> conflicts;

        Conflicts(List<Conflict> conflicts) {
            super("Apply failed with " + conflicts.size() + " conflict" + (conflicts.size() == 1 ? "" : "s") + ": "
                    + String.join(
                            "; ",
                            conflicts.stream()
                                    .map(c -> c.message() + ": " + c.field())
                                    .toList()));
            this.conflicts = conflicts;
        }

        public List<Conflict> conflicts() {
            return conflicts;
        }
    }

    /** The object an apply makes (a manifest tree) and its new managed fields. */
    public record Applied(JsonNode object, List<ManagedFieldsEntry> managedFields) {}

    /**
     * Applies {@code config} for {@code manager} to {@code current} (the stored object's writable tree, or null for a
     * create); throws {@link Conflicts} when another manager owns a field it would change and {@code force} is off.
     */
    public static Applied apply(
            JsonNode current,
            List<ManagedFieldsEntry> managed,
            JsonNode config,
            String manager,
            boolean force,
            Instant now) {
        Map<List<String>, JsonNode> wanted = leaves(config);
        Map<List<String>, JsonNode> live = current == null ? Map.of() : leaves(current);
        List<ManagedFieldsEntry> entries = new ArrayList<>(managed == null ? List.of() : managed);
        ManagedFieldsEntry own = find(entries, manager, ManagedFieldsEntry.APPLY);
        entries.remove(own);
        List<Conflict> conflicts = new ArrayList<>();
        for (ManagedFieldsEntry other : entries) {
            for (List<String> field : fields(other)) {
                if (wanted.containsKey(field) && !wanted.get(field).equals(live.get(field))) {
                    conflicts.add(new Conflict(other.manager(), dotted(field)));
                }
            }
        }
        if (!conflicts.isEmpty() && !force) {
            throw new Conflicts(conflicts);
        }
        ObjectNode object = current == null ? config.deepCopy() : current.deepCopy();
        Set<List<String>> ownedByOthers = new LinkedHashSet<>();
        entries.forEach(e -> ownedByOthers.addAll(fields(e)));
        for (List<String> field : own == null ? Set.<List<String>>of() : fields(own)) {
            if (!wanted.containsKey(field) && !ownedByOthers.contains(field)) {
                remove(object, field);
            }
        }
        wanted.forEach((field, value) -> set(object, field, value));
        List<ManagedFieldsEntry> next = new ArrayList<>();
        for (ManagedFieldsEntry other : entries) {
            Set<List<String>> kept = new LinkedHashSet<>(fields(other));
            conflicts.stream()
                    .filter(c -> c.manager().equals(other.manager()))
                    .forEach(c -> kept.removeIf(f -> dotted(f).equals(c.field())));
            add(next, other, kept);
        }
        Set<List<String>> applied = wanted.keySet();
        boolean same = own != null && fields(own).equals(applied);
        next.add(entry(manager, ManagedFieldsEntry.APPLY, same ? own.time() : now, applied));
        return new Applied(object, next);
    }

    /** The managed fields after {@code manager} wrote {@code next} over {@code current} by any other operation. */
    public static List<ManagedFieldsEntry> update(
            JsonNode current, List<ManagedFieldsEntry> managed, JsonNode next, String manager, Instant now) {
        Map<List<String>, JsonNode> before = current == null ? Map.of() : leaves(current);
        Map<List<String>, JsonNode> after = leaves(next);
        Set<List<String>> changed = new LinkedHashSet<>();
        after.forEach((field, value) -> {
            if (!value.equals(before.get(field))) {
                changed.add(field);
            }
        });
        Set<List<String>> removed = new LinkedHashSet<>(before.keySet());
        removed.removeAll(after.keySet());
        List<ManagedFieldsEntry> entries = new ArrayList<>(managed == null ? List.of() : managed);
        ManagedFieldsEntry own = find(entries, manager, ManagedFieldsEntry.UPDATE);
        entries.remove(own);
        List<ManagedFieldsEntry> result = new ArrayList<>();
        for (ManagedFieldsEntry other : entries) {
            Set<List<String>> kept = new LinkedHashSet<>(fields(other));
            kept.removeAll(changed);
            kept.removeAll(removed);
            add(result, other, kept);
        }
        Set<List<String>> mine = new LinkedHashSet<>(own == null ? Set.of() : fields(own));
        mine.removeAll(removed);
        mine.addAll(changed);
        if (!mine.isEmpty()) {
            boolean same = own != null && fields(own).equals(mine);
            result.add(entry(manager, ManagedFieldsEntry.UPDATE, same ? own.time() : now, mine));
        }
        return result;
    }

    /**
     * The managed fields a write starts from when its object says {@code given} ({@code metadata.managedFields} as the
     * client sent it; null when absent), as the API server decides it:
     *
     * <ul>
     *   <li>absent, empty, the same as stored, or not readable as managed fields: those stored ({@code live}), so a
     *       client that does not know the field cannot lose it;
     *   <li>a list of one empty entry: none (how a client strips them);
     *   <li>otherwise the given ones: how {@code kubectl apply --server-side} moves the fields of an earlier
     *       client-side apply to its own manager (kubectl's managed fields migration, a JSON patch of
     *       {@code /metadata/managedFields}).
     * </ul>
     *
     * At most {@value #MAX_GIVEN_ENTRIES} entries are taken; a longer list is not readable.
     */
    public static List<ManagedFieldsEntry> given(JsonNode given, List<ManagedFieldsEntry> live) {
        if (given == null || !given.isArray() || given.isEmpty() || given.size() > MAX_GIVEN_ENTRIES) {
            return live;
        }
        if (given.size() == 1 && given.get(0).isObject() && given.get(0).isEmpty()) {
            return List.of();
        }
        List<ManagedFieldsEntry> entries = new ArrayList<>();
        for (JsonNode entry : given) {
            ManagedFieldsEntry read = entry(entry);
            if (read == null) {
                return live;
            }
            entries.add(read);
        }
        return entries.equals(live) ? live : List.copyOf(entries);
    }

    /** One given entry, or null when it is not one this server keeps (a subresource's, or not FieldsV1). */
    private static ManagedFieldsEntry entry(JsonNode entry) {
        String manager = entry.path("manager").asText("");
        String operation = entry.path("operation").asText("");
        JsonNode fields = entry.path("fieldsV1");
        if (!entry.isObject()
                || manager.isEmpty()
                || manager.length() > MAX_MANAGER_CHARS
                || !(operation.equals(ManagedFieldsEntry.APPLY) || operation.equals(ManagedFieldsEntry.UPDATE))
                || !entry.path("fieldsType")
                        .asText(ManagedFieldsEntry.FIELDS_V1)
                        .equals(ManagedFieldsEntry.FIELDS_V1)
                || !entry.path("subresource").asText("").isEmpty()
                || !fields.isObject()) {
            return null;
        }
        Instant time;
        try {
            time = entry.hasNonNull("time") ? Instant.parse(entry.get("time").asText()) : null;
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
        String apiVersion = entry.path("apiVersion").asText(API_VERSION);
        return new ManagedFieldsEntry(manager, operation, apiVersion, time, ManagedFieldsEntry.FIELDS_V1, fields);
    }

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

    private static void set(ObjectNode root, List<String> field, JsonNode value) {
        ObjectNode parent = root;
        for (String part : field.subList(0, field.size() - 1)) {
            parent = parent.get(part) instanceof ObjectNode o ? o : parent.putObject(part);
        }
        parent.set(field.get(field.size() - 1), value.deepCopy());
    }

    private static void remove(ObjectNode root, List<String> field) {
        JsonNode parent = root;
        for (String part : field.subList(0, field.size() - 1)) {
            parent = parent.path(part);
        }
        if (parent instanceof ObjectNode o) {
            o.remove(field.get(field.size() - 1));
        }
    }

    private static ManagedFieldsEntry find(List<ManagedFieldsEntry> entries, String manager, String operation) {
        return entries.stream()
                .filter(e -> e.manager().equals(manager) && e.operation().equals(operation))
                .findFirst()
                .orElse(null);
    }

    private static void add(List<ManagedFieldsEntry> into, ManagedFieldsEntry entry, Set<List<String>> fields) {
        if (!fields.isEmpty()) {
            into.add(
                    fields.equals(fields(entry))
                            ? entry
                            : entry(entry.manager(), entry.operation(), entry.time(), fields));
        }
    }

    private static ManagedFieldsEntry entry(String manager, String operation, Instant time, Set<List<String>> fields) {
        return new ManagedFieldsEntry(
                manager, operation, API_VERSION, time, ManagedFieldsEntry.FIELDS_V1, fieldsV1(fields));
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

    private static String dotted(List<String> field) {
        StringBuilder out = new StringBuilder();
        for (String part : field) {
            out.append(part.matches("[A-Za-z0-9_]+") ? "." + part : "[" + part + "]");
        }
        return out.toString();
    }
}
