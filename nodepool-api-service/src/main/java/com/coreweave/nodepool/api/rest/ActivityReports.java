package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A node activity report sent over REST, read the way {@code node-activity-reported} reads one: the record is built
 * from the path and the body, then passed through the topic's own check, so REST and topic refuse the same reports.
 */
final class ActivityReports {

    static final String KIND = "NodeActivity";

    private ActivityReports() {}

    /** The report on {@code node} of the pool {@code key} made {@code now}; a report the topic refuses is a 422. */
    static NodeActivityReported read(PoolKey key, String node, String body, Instant now) {
        JsonNode report = RequestBody.tree(body, "a node activity report");
        // The path says whose node it is and the server when; a body that is no object is left for the check to refuse.
        if (report instanceof ObjectNode fields) {
            ObjectNode record = fields.deepCopy();
            record.put("org", key.org());
            record.put("pool", key.pool());
            record.put("node", node);
            record.put("reportedAt", now.toString());
            report = record;
        }
        try {
            return Topics.NODE_ACTIVITY_REPORTED.read(key.toString(), Json.bytes(report));
        } catch (Rejection rejection) {
            throw FieldErrors.one(Statuses.INVALID, rejection.reason(), null).refusal(KIND, node);
        }
    }
}
