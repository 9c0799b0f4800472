package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.RecordChecks.bind;
import static com.coreweave.nodepool.schema.topics.RecordChecks.blank;
import static com.coreweave.nodepool.schema.topics.RecordChecks.invalid;
import static com.coreweave.nodepool.schema.topics.RecordChecks.nodeName;
import static com.coreweave.nodepool.schema.topics.RecordChecks.pool;
import static com.coreweave.nodepool.schema.topics.RecordChecks.sameKey;
import static com.coreweave.nodepool.schema.topics.RecordChecks.tree;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collection;
import java.util.Map;

/**
 * What the records about nodes must satisfy: activity reports, node facts, configuration, deletion and change requests,
 * releases.
 */
final class NodeRecordChecks {

    private NodeRecordChecks() {}

    /** Activity reports come from platform teams: read from the JSON tree, so nothing missing becomes a default. */
    static final ValueFormat<NodeActivityReported> ACTIVITY = new ValueFormat<>("NodeActivityReported", bytes -> {
        JsonNode report = tree(bytes, "NodeActivityReported");
        for (String field : new String[] {"org", "pool", "node"}) {
            JsonNode value = report.get(field);
            if (value == null || !value.isTextual() || value.textValue().isBlank()) {
                throw invalid(field + " is required and must be a non-empty string");
            }
        }
        if (!report.path("active").isBoolean()) {
            throw invalid("active is required and must be true or false");
        }
        JsonNode grace = report.get("terminationGracePeriodSeconds");
        if (grace != null && !grace.isNull() && !(grace.isIntegralNumber() && grace.canConvertToInt())) {
            throw invalid("terminationGracePeriodSeconds must be a whole number of seconds");
        }
        JsonNode disruptions = report.get("disruptionsAllowed");
        if (disruptions != null
                && !disruptions.isNull()
                && !(disruptions.isIntegralNumber() && disruptions.canConvertToInt() && disruptions.intValue() >= 0)) {
            throw invalid("disruptionsAllowed must be a whole number >= 0 (the workload's PodDisruptionBudget status)");
        }
        JsonNode hold = report.get("doNotDisrupt");
        if (hold != null && !hold.isNull() && !hold.isBoolean()) {
            throw invalid("doNotDisrupt must be true or false");
        }
        return bind(report, NodeActivityReported.class);
    });

    static void activity(PoolKey key, NodeActivityReported report) {
        sameKey(key, report.org(), report.pool());
        nodeName(report.node());
        if (report.terminationGracePeriodSeconds() != null && report.terminationGracePeriodSeconds() < 0) {
            throw invalid("terminationGracePeriodSeconds must not be negative, got "
                    + report.terminationGracePeriodSeconds());
        }
    }

    static void nodeFact(PoolKey key, NodeFact fact) {
        pool(key, fact.pool());
        if (fact instanceof NodeFact.AboutNode about) {
            if (about.node() == null
                    || about.node().metadata() == null
                    || about.node().name() == null) {
                throw invalid("node.metadata.name is required");
            }
            if (fact instanceof NodeFact.NodeRemoved
                    && (about.grant() == null || blank(about.grant().machine()))) {
                throw invalid("NodeRemoved names no grant to release");
            }
        }
    }

    static void configurationRequested(PoolKey key, NodeConfigurationRequested request) {
        if (blank(request.id()) || blank(request.org()) || blank(request.pool())) {
            throw invalid("id, org and pool are required");
        }
        if (request.action() == null) {
            throw invalid("action is required: one of Upgrade, Rollback, Reconfigure");
        }
        if (request.action() == NodeConfigurationRequested.Action.Rollback && blank(request.nodeProfile())) {
            throw invalid("a Rollback names the nodeProfile of the revision to return to");
        }
        request.nodes().forEach(RecordChecks::nodeName);
        sameKey(key, request.org(), request.pool());
    }

    static void deletionRequested(PoolKey key, NodeDeletionRequested request) {
        if (blank(request.id()) || blank(request.org()) || blank(request.pool())) {
            throw invalid("id, org and pool are required");
        }
        nodeName(request.node());
        sameKey(key, request.org(), request.pool());
    }

    /** A user's node change: bounded as the api-service bounds it, so no record makes a node grow past the limits. */
    static void changeRequested(PoolKey key, NodeChangeRequested request) {
        if (blank(request.id()) || blank(request.org()) || blank(request.pool())) {
            throw invalid("id, org and pool are required");
        }
        nodeName(request.node());
        sameKey(key, request.org(), request.pool());
        int max = Limits.MAX_USER_NODE_MARKS;
        if (size(request.labels()) > max
                || size(request.removedLabels()) > max
                || size(request.annotations()) > max
                || size(request.removedAnnotations()) > max
                || size(request.taints()) > max) {
            throw invalid("a node change names at most " + max + " labels, annotations and taints of each kind");
        }
        if (Json.bytes(request).length > Limits.MAX_NODE_METADATA_BYTES * 2) {
            throw invalid("a node change may be at most " + Limits.MAX_NODE_METADATA_BYTES * 2 + " bytes as JSON");
        }
    }

    private static int size(Collection<?> values) {
        return values == null ? 0 : values.size();
    }

    private static int size(Map<?, ?> values) {
        return values == null ? 0 : values.size();
    }

    static void release(String train, NodeReleasePublished release) {
        if (!train.equals(release.releaseTrain())) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "the release is of train \"" + release.releaseTrain() + "\" but its key is \"" + train + "\"");
        }
        if (blank(release.version())) {
            throw invalid("version is required");
        }
    }
}
