package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;

import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Checks an operator's release body ({@code {"releaseTrain": "stable", "version": "2026.11.2", "summary": [...]}}) and
 * turns it into the record every provisioner task receives. Each bad field is one cause, named by its path.
 */
public final class ReleaseRequest {

    private static final Set<String> FIELDS = Set.of("releaseTrain", "version", "summary");

    private ReleaseRequest() {}

    public static List<StatusCause> problems(JsonNode body) {
        List<StatusCause> causes = new ArrayList<>();
        if (body == null || !body.isObject()) {
            causes.add(Statuses.cause(INVALID, "must be a JSON object", ""));
            return causes;
        }
        JsonNode train = body.get("releaseTrain");
        if (train == null || !train.isTextual() || !NodeReleases.TRAINS.contains(train.asText())) {
            causes.add(Statuses.cause(
                    train == null ? REQUIRED : INVALID, "must be one of " + NodeReleases.TRAINS, "releaseTrain"));
        }
        JsonNode version = body.get("version");
        if (version == null
                || !version.isTextual()
                || version.asText().isBlank()
                || version.asText().length() > 63) {
            causes.add(Statuses.cause(
                    version == null ? REQUIRED : INVALID,
                    "must be a non-empty string of at most 63 characters",
                    "version"));
        }
        JsonNode summary = body.get("summary");
        if (summary != null && !summary.isNull()) {
            if (!summary.isArray()) {
                causes.add(Statuses.cause(INVALID, "must be a list of strings", "summary"));
            } else {
                for (int i = 0; i < summary.size(); i++) {
                    if (!summary.get(i).isTextual()) {
                        causes.add(Statuses.cause(INVALID, "must be a string", "summary[" + i + "]"));
                    }
                }
            }
        }
        body.fieldNames().forEachRemaining(f -> {
            if (!FIELDS.contains(f)) {
                causes.add(Statuses.cause(INVALID, "unknown field \"" + f + "\"", f));
            }
        });
        return causes;
    }

    /** The release of a body without {@link #problems}. */
    public static NodeReleasePublished of(JsonNode body, Instant now) {
        List<String> summary = new ArrayList<>();
        JsonNode lines = body.get("summary");
        if (lines != null && lines.isArray()) {
            lines.forEach(line -> summary.add(line.asText()));
        }
        return new NodeReleasePublished(
                body.get("releaseTrain").asText(), body.get("version").asText(), summary, now);
    }
}
