package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
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
        Map<List<String>, JsonNode> wanted = ManagedFieldSets.leaves(config);
        Map<List<String>, JsonNode> live = current == null ? Map.of() : ManagedFieldSets.leaves(current);
        List<ManagedFieldsEntry> entries = new ArrayList<>(managed == null ? List.of() : managed);
        ManagedFieldsEntry own = ManagedFieldSets.find(entries, manager, ManagedFieldsEntry.APPLY);
        entries.remove(own);
        List<Conflict> conflicts = new ArrayList<>();
        for (ManagedFieldsEntry other : entries) {
            for (List<String> field : ManagedFieldSets.fields(other)) {
                if (wanted.containsKey(field) && !wanted.get(field).equals(live.get(field))) {
                    conflicts.add(new Conflict(other.manager(), ManagedFieldSets.dotted(field)));
                }
            }
        }
        if (!conflicts.isEmpty() && !force) {
            throw new Conflicts(conflicts);
        }
        ObjectNode object = current == null ? config.deepCopy() : current.deepCopy();
        Set<List<String>> ownedByOthers = new LinkedHashSet<>();
        entries.forEach(e -> ownedByOthers.addAll(ManagedFieldSets.fields(e)));
        for (List<String> field : own == null ? Set.<List<String>>of() : ManagedFieldSets.fields(own)) {
            if (!wanted.containsKey(field) && !ownedByOthers.contains(field)) {
                ManagedFieldSets.remove(object, field);
            }
        }
        wanted.forEach((field, value) -> ManagedFieldSets.set(object, field, value));
        List<ManagedFieldsEntry> next = new ArrayList<>();
        for (ManagedFieldsEntry other : entries) {
            Set<List<String>> kept = new LinkedHashSet<>(ManagedFieldSets.fields(other));
            conflicts.stream()
                    .filter(c -> c.manager().equals(other.manager()))
                    .forEach(c -> kept.removeIf(f -> ManagedFieldSets.dotted(f).equals(c.field())));
            ManagedFieldSets.add(next, other, kept);
        }
        Set<List<String>> applied = wanted.keySet();
        boolean same = own != null && ManagedFieldSets.fields(own).equals(applied);
        next.add(ManagedFieldSets.entry(manager, ManagedFieldsEntry.APPLY, same ? own.time() : now, applied));
        return new Applied(object, next);
    }

    /** The managed fields after {@code manager} wrote {@code next} over {@code current} by any other operation. */
    public static List<ManagedFieldsEntry> update(
            JsonNode current, List<ManagedFieldsEntry> managed, JsonNode next, String manager, Instant now) {
        Map<List<String>, JsonNode> before = current == null ? Map.of() : ManagedFieldSets.leaves(current);
        Map<List<String>, JsonNode> after = ManagedFieldSets.leaves(next);
        Set<List<String>> changed = new LinkedHashSet<>();
        after.forEach((field, value) -> {
            if (!value.equals(before.get(field))) {
                changed.add(field);
            }
        });
        Set<List<String>> removed = new LinkedHashSet<>(before.keySet());
        removed.removeAll(after.keySet());
        List<ManagedFieldsEntry> entries = new ArrayList<>(managed == null ? List.of() : managed);
        ManagedFieldsEntry own = ManagedFieldSets.find(entries, manager, ManagedFieldsEntry.UPDATE);
        entries.remove(own);
        List<ManagedFieldsEntry> result = new ArrayList<>();
        for (ManagedFieldsEntry other : entries) {
            Set<List<String>> kept = new LinkedHashSet<>(ManagedFieldSets.fields(other));
            kept.removeAll(changed);
            kept.removeAll(removed);
            ManagedFieldSets.add(result, other, kept);
        }
        Set<List<String>> mine = new LinkedHashSet<>(own == null ? Set.of() : ManagedFieldSets.fields(own));
        mine.removeAll(removed);
        mine.addAll(changed);
        if (!mine.isEmpty()) {
            boolean same = own != null && ManagedFieldSets.fields(own).equals(mine);
            result.add(ManagedFieldSets.entry(manager, ManagedFieldsEntry.UPDATE, same ? own.time() : now, mine));
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
}
