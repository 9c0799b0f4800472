package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;

import com.coreweave.nodepool.api.domain.ManifestValidator.FieldValidation;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.schema.Limits;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * What one check of a manifest found: the causes of its errors, and the warnings of the unknown fields it dropped as
 * the write's {@link FieldValidation} asks.
 */
final class ManifestFindings {

    private final FieldValidation mode;
    private final FieldErrors causes = new FieldErrors();
    private final List<String> warnings = new ArrayList<>();
    private int unlistedWarnings;

    ManifestFindings(FieldValidation mode) {
        this.mode = mode;
    }

    void add(String reason, String message, String field) {
        causes.add(reason, message, field);
    }

    /** An unknown field at {@code path}: an error, or dropped from the manifest (with a warning when asked). */
    void unknown(Iterator<Map.Entry<String, JsonNode>> field, String path) {
        switch (mode) {
            case Strict ->
                add(INVALID, "unknown field \"" + shown(path.substring(path.lastIndexOf('.') + 1)) + "\"", path);
            case Warn -> {
                if (warnings.size() < Limits.MAX_CAUSES) {
                    warnings.add("unknown field \"" + shown(path) + "\"");
                } else {
                    unlistedWarnings++;
                }
                field.remove();
            }
            case Ignore -> field.remove();
        }
    }

    FieldErrors causes() {
        return causes;
    }

    /** The warnings, the ones past {@link Limits#MAX_CAUSES} counted at the end. */
    List<String> warnings() {
        List<String> all = new ArrayList<>(warnings);
        if (unlistedWarnings > 0) {
            all.add("and " + unlistedWarnings + " more unknown fields");
        }
        return List.copyOf(all);
    }

    static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    static String shown(JsonNode value) {
        return FieldErrors.shown(value.toString());
    }

    static String shown(String text) {
        return FieldErrors.shown(text);
    }
}
