package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What each topic's values must satisfy beyond their JSON shape: everything a reader relies on (the key matches the
 * value, a pool names its incarnation, zone and type, a node is named). Written once here, so every service that reads
 * a topic refuses exactly the same records.
 */
final class RecordChecks {

    private RecordChecks() {}

    /** A Kubernetes Node name: a DNS-1123 subdomain. */
    private static final Pattern NODE_NAME =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    static void accepted(PoolKey key, NodePoolAccepted accepted) {
        NodePool pool = accepted.nodePool();
        if (pool == null || pool.metadata() == null || pool.spec() == null || accepted.validation() == null) {
            throw invalid("an accepted pool needs nodePool.metadata, nodePool.spec and validation");
        }
        if (blank(pool.metadata().uid()) || pool.metadata().generation() == null) {
            throw invalid("an accepted pool needs metadata.uid and metadata.generation");
        }
        if (!segment(pool.spec().region()) || !segment(pool.spec().instanceType())) {
            throw invalid("an accepted pool needs spec.region and spec.instanceType without '/'");
        }
        sameKey(key, accepted.org(), pool.name());
    }

    static void quotaLimit(QuotaKey key, QuotaLimit limit) {
        if (!key.equals(limit.key())) {
            throw new Rejection(Code.KEY_MISMATCH, "key '" + key + "' does not match the quota " + limit.key());
        }
        if (limit.maxNodes() < 0) {
            throw invalid("maxNodes must be at least 0, not " + limit.maxNodes());
        }
    }

    static void catalogued(String key, InstanceType type) {
        if (!key.equals(type.name())) {
            throw new Rejection(
                    Code.KEY_MISMATCH, "key '" + key + "' does not match the instance type '" + type.name() + "'");
        }
    }

    static void orgPoolCount(String key, OrgPoolCount count) {
        if (blank(count.org()) || count.partition() < 0 || count.pools() < 0 || count.bytes() < 0) {
            throw invalid("a pool count needs an org, a partition, a count and bytes, none negative");
        }
        if (!key.equals(count.key())) {
            throw new Rejection(
                    Code.KEY_MISMATCH, "key '" + key + "' is not the count's <org>/<partition> '" + count.key() + "'");
        }
    }

    static void quotaDemanded(QuotaKey key, QuotaDemanded demanded) {
        complete(demanded.pool());
        if (!key.equals(demanded.quotaKey())) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "key '" + key + "' is not the quota of the pool's org, zone and type " + demanded.quotaKey());
        }
    }

    static void capacityDemanded(ZoneTypeKey key, CapacityDemanded demanded) {
        PoolKey pool;
        try {
            pool = PoolKey.parse(demanded.pool());
        } catch (IllegalArgumentException e) {
            throw invalid("a demand names its pool: " + e.getMessage());
        }
        if ((demanded.quota() == null) == blank(demanded.goneUid())) {
            throw invalid(
                    "a demand carries either the pool's quota decision or the goneUid of the incarnation that left");
        }
        if (demanded.quota() != null) {
            pool(pool, demanded.quota().pool());
            ZoneTypeKey ledger = demanded.quota().pool().ledgerKey();
            if (!key.equals(ledger)) {
                throw new Rejection(
                        Code.KEY_MISMATCH, "key '" + key + "' is not the ledger of the pool's zone and type " + ledger);
            }
        }
    }

    static void capacityChecked(PoolKey key, CapacityChecked checked) {
        pool(key, checked.pool());
        if (checked.grants() != null && checked.grants().stream().anyMatch(g -> g == null || blank(g.machine()))) {
            throw invalid("every grant names its machine");
        }
    }

    static void fleetChange(ZoneTypeKey key, FleetChangeRequested change) {
        if (blank(change.requestId())
                || change.operation() == null
                || change.zone() == null
                || change.instanceType() == null) {
            throw invalid("a fleet change needs requestId, zone, instanceType and operation");
        }
        if (!key.equals(change.key())) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "key '" + key + "' does not match the change's zone and instance type '" + change.key() + "'");
        }
    }

    static void spotReclaim(PoolKey key, SpotReclaimRequested reclaim) {
        if (blank(reclaim.reclaimId())) {
            throw invalid("reclaimId is required");
        }
        pool(key, reclaim.pool());
        if (!reclaim.pool().spot()) {
            throw new Rejection(
                    Code.NOT_SPOT_POOL,
                    "pool " + key + " has computeClass " + reclaim.pool().computeClass()
                            + "; only nodes of spot pools are preempted");
        }
        if (reclaim.nodes() == null || reclaim.nodes().isEmpty()) {
            throw invalid("nodes must name at least one node");
        }
        reclaim.nodes().forEach(RecordChecks::nodeName);
    }

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

    /** Quota limits: a missing {@code maxNodes} must not read as a quota of 0. */
    static final ValueFormat<QuotaLimit> QUOTA_LIMIT = new ValueFormat<>("QuotaLimit", bytes -> {
        JsonNode tree = tree(bytes, "QuotaLimit");
        JsonNode maxNodes = tree.get("maxNodes");
        if (maxNodes == null || !maxNodes.isIntegralNumber() || !maxNodes.canConvertToInt()) {
            throw invalid("a quota limit needs maxNodes, a whole number");
        }
        return bind(tree, QuotaLimit.class);
    });

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

    static void preemption(PoolKey key, PreemptionFact fact) {
        if (blank(fact.reclaimId())) {
            throw invalid("reclaimId is required");
        }
        pool(key, fact.pool());
        nodeName(fact.node());
    }

    static void eventsRecorded(PoolKey key, RecordedEvents recorded) {
        if (recorded.events().isEmpty()) {
            throw invalid("events must name at least one recorded event");
        }
        for (RecordedEvent event : recorded.events()) {
            if (blank(event.id()) || blank(event.reason()) || blank(event.type()) || blank(event.poolUid())) {
                throw invalid("every recorded event needs id, poolUid, reason and type");
            }
            sameKey(key, event.org(), event.pool());
        }
    }

    static void requestDecided(PoolKey key, RequestDecided decided) {
        if (blank(decided.requestId()) || decided.outcome() == null) {
            throw invalid("a decision needs requestId and outcome");
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

    static void status(PoolKey key, NodePool pool) {
        if (pool.metadata() == null || !key.pool().equals(pool.name())) {
            throw new Rejection(Code.KEY_MISMATCH, "key '" + key + "' does not match the NodePool's metadata.name");
        }
    }

    static void workloadStatus(PoolKey key, WorkloadStatus status) {
        sameKey(key, status.org(), status.name());
    }

    static void availability(ZoneTypeKey key, FleetAvailability availability) {
        if (!key.equals(availability.key())) {
            throw new Rejection(Code.KEY_MISMATCH, "key '" + key + "' does not match " + availability.key());
        }
    }

    static void poolOffer(String org, PoolOffer offer) {
        if (!org.equals(offer.org()) || blank(offer.pool())) {
            throw new Rejection(Code.KEY_MISMATCH, "key '" + org + "' does not match the offer of " + offer.org());
        }
        if (!offer.withdrawn() && (!segment(offer.instanceType()) || !segment(offer.zone()))) {
            throw invalid("a pool offer needs instanceType and zone without '/'");
        }
    }

    static void poolDemand(PoolKey key, PoolDemand demand) {
        sameKey(key, demand.org(), demand.pool());
    }

    private static void pool(PoolKey key, PoolRef pool) {
        complete(pool);
        sameKey(key, pool.org(), pool.pool());
    }

    private static void complete(PoolRef pool) {
        if (pool == null
                || blank(pool.org())
                || blank(pool.pool())
                || blank(pool.uid())
                || blank(pool.zone())
                || blank(pool.instanceType())) {
            throw invalid("the pool reference needs org, pool, uid, zone and instanceType");
        }
    }

    private static void sameKey(PoolKey key, String org, String pool) {
        if (!key.org().equals(org) || !key.pool().equals(pool)) {
            throw new Rejection(
                    Code.KEY_MISMATCH,
                    "key '" + key + "' does not match the pool named in the value, '" + org + "/" + pool + "'");
        }
    }

    static void nodeName(String node) {
        if (node == null || node.length() > 253 || !NODE_NAME.matcher(node).matches()) {
            throw invalid("'" + node + "' is not a node name (a DNS-1123 subdomain)");
        }
    }

    private static JsonNode tree(byte[] bytes, String type) {
        JsonNode tree;
        try {
            tree = Json.mapper().readTree(bytes);
        } catch (Exception e) {
            throw new Rejection(Code.MALFORMED_JSON, "value is not JSON: " + ValueFormat.firstLine(e.getMessage()));
        }
        if (tree == null || !tree.isObject()) {
            throw invalid("value is not a JSON object (a " + type + ")");
        }
        return tree;
    }

    private static <T> T bind(JsonNode tree, Class<T> type) {
        try {
            return Json.mapper().treeToValue(tree, type);
        } catch (Exception e) {
            throw invalid("value is not a " + type.getSimpleName() + ": " + ValueFormat.firstLine(e.getMessage()));
        }
    }

    /** An audit event is Kubernetes' {@code audit.k8s.io/v1} Event with an id. */
    static void auditEvent(String key, JsonNode event) {
        if (!"Event".equals(event.path("kind").asText())
                || !"audit.k8s.io/v1".equals(event.path("apiVersion").asText())
                || blank(event.path("auditID").asText(null))) {
            throw invalid("an audit event is an audit.k8s.io/v1 Event with an auditID");
        }
    }

    private static Rejection invalid(String reason) {
        return new Rejection(Code.INVALID_RECORD, reason);
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    private static boolean segment(String value) {
        return !blank(value) && !value.contains("/");
    }
}
