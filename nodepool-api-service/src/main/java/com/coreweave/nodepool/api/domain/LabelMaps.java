package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.ManifestFindings.shown;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;

import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.api.kube.KubeSyntax;
import com.coreweave.nodepool.schema.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The NodePool's maps of labels and annotations, its own and those it puts on its nodes: Kubernetes' syntax of keys and
 * label values, and their sizes together once all are seen ({@link #sizes}).
 */
final class LabelMaps {

    /**
     * The maps of labels and annotations, in the order their sizes add up (the cause names where the sum went over).
     */
    private static final List<String> LABELS_AND_ANNOTATIONS =
            List.of("metadata.labels", "metadata.annotations", "spec.nodeLabels", "spec.nodeAnnotations");

    private static final Set<String> LABELS = Set.of("metadata.labels", "spec.nodeLabels");
    /** What every node of the pool carries. */
    private static final List<String> NODE_METADATA = List.of("spec.nodeLabels", "spec.nodeAnnotations");

    private final ManifestFindings found;
    private final SchemaStrings strings;
    /** The size of each map of labels or annotations, keys and values in UTF-8 bytes. */
    private final Map<String, Long> labelBytes = new HashMap<>();
    /** The maps every node carries, as given (when they are maps). */
    private final Map<String, JsonNode> nodeMetadata = new HashMap<>();

    LabelMaps(ManifestFindings found, SchemaStrings strings) {
        this.found = found;
        this.strings = strings;
    }

    /**
     * A map of labels or annotations: string values (each against {@code valueSchema} where the CRD gives one), keys of
     * Kubernetes' qualified-name syntax, and for labels values of label syntax (which bounds them at 63 characters).
     * Its size is kept for {@link #sizes}.
     */
    void check(JsonNode map, String path, JSONSchemaProps valueSchema) {
        if (map == null || map.isNull()) {
            return;
        }
        if (!map.isObject()) {
            found.add(TYPE_INVALID, "must be a map of string keys to string values", path);
            return;
        }
        boolean labels = LABELS.contains(path);
        long bytes = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String key = entry.getKey();
            String keyError = KubeSyntax.qualifiedNameError(key);
            if (keyError != null) {
                found.add(INVALID, "Invalid value: \"" + shown(key) + "\": " + keyError, path);
            }
            bytes += utf8(key);
            String entryPath = path + "[" + shown(key) + "]";
            if (!entry.getValue().isTextual()) {
                found.add(TYPE_INVALID, "Invalid value: " + shown(entry.getValue()) + ": must be a string", entryPath);
                continue;
            }
            String value = entry.getValue().textValue();
            bytes += utf8(value);
            String valueError = labels ? KubeSyntax.labelValueError(value) : null;
            if (valueError != null) {
                found.add(INVALID, "Invalid value: \"" + shown(value) + "\": " + valueError, entryPath);
            } else if (!labels && valueSchema != null) {
                strings.check(entry.getValue(), valueSchema, entryPath, found);
            }
        }
        labelBytes.put(path, bytes);
        if (NODE_METADATA.contains(path)) {
            nodeMetadata.put(path, map);
        }
    }

    /**
     * The sizes of labels and annotations, all four maps together in UTF-8 (as Kubernetes bounds an object's
     * annotations), and the nodes' two maps as JSON: every node of the pool carries them.
     */
    void sizes() {
        long total = 0;
        for (String path : LABELS_AND_ANNOTATIONS) {
            total += labelBytes.getOrDefault(path, 0L);
            if (total > Limits.MAX_LABELS_AND_ANNOTATIONS_BYTES) {
                found.add(
                        TOO_LONG,
                        "Too long: metadata.labels, metadata.annotations, spec.nodeLabels and spec.nodeAnnotations "
                                + "must have at most " + Limits.MAX_LABELS_AND_ANNOTATIONS_BYTES
                                + " bytes together (keys and values in "
                                + "UTF-8), these have "
                                + LABELS_AND_ANNOTATIONS.stream()
                                        .mapToLong(p -> labelBytes.getOrDefault(p, 0L))
                                        .sum(),
                        path);
                break;
            }
        }
        long json = 0;
        for (String path : NODE_METADATA) {
            JsonNode map = nodeMetadata.get(path);
            json += map == null ? 0 : JsonSize.of(map, Limits.MAX_NODE_METADATA_BYTES);
            if (json > Limits.MAX_NODE_METADATA_BYTES) {
                found.add(
                        TOO_LONG,
                        "Too long: spec.nodeLabels and spec.nodeAnnotations must have at most "
                                + Limits.MAX_NODE_METADATA_BYTES
                                + " bytes together as JSON, since every node of the pool carries them",
                        path);
                break;
            }
        }
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
