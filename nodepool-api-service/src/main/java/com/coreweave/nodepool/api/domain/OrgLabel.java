package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * The org a pool belongs to, shown to an operator who reads every org as the label {@value #KEY}: pools of the same
 * name are told apart by it, and {@code -l compute.coreweave.com/org=demo} selects one org. The server sets it; a write
 * that carries it back (a replace of what was read) has it ignored.
 */
public final class OrgLabel {

    public static final String KEY = "compute.coreweave.com/org";

    private OrgLabel() {}

    public static NodePool shown(NodePool pool, String org) {
        Map<String, String> labels = new TreeMap<>(
                pool.metadata().labels() == null ? Map.of() : pool.metadata().labels());
        labels.put(KEY, org);
        var m = pool.metadata();
        return pool.withMetadata(new ObjectMeta(
                m.name(),
                m.uid(),
                m.generation(),
                m.resourceVersion(),
                m.creationTimestamp(),
                m.deletionTimestamp(),
                labels,
                m.annotations(),
                m.managedFields()));
    }

    /** Who a shown pool is: its org and name, unique across orgs. */
    public static String identity(NodePool shown) {
        return shown.metadata().labels().get(KEY) + "/" + shown.name();
    }

    /** Removes the label from a manifest tree about to be written. */
    public static void strip(JsonNode manifest) {
        if (manifest != null && manifest.path("metadata").path("labels") instanceof ObjectNode labels) {
            labels.remove(KEY);
        }
    }
}
