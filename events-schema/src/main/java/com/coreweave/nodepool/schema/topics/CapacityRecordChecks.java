package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.RecordChecks.bind;
import static com.coreweave.nodepool.schema.topics.RecordChecks.blank;
import static com.coreweave.nodepool.schema.topics.RecordChecks.complete;
import static com.coreweave.nodepool.schema.topics.RecordChecks.invalid;
import static com.coreweave.nodepool.schema.topics.RecordChecks.nodeName;
import static com.coreweave.nodepool.schema.topics.RecordChecks.pool;
import static com.coreweave.nodepool.schema.topics.RecordChecks.tree;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.FleetAvailability;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the records of quota and capacity must satisfy: limits, demands, the catalogue, fleet changes, allocations, spot
 * reclaims and preemptions, availability.
 */
final class CapacityRecordChecks {

    private CapacityRecordChecks() {}

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

    /** Quota limits: a missing {@code maxNodes} must not read as a quota of 0. */
    static final ValueFormat<QuotaLimit> QUOTA_LIMIT = new ValueFormat<>("QuotaLimit", bytes -> {
        JsonNode tree = tree(bytes, "QuotaLimit");
        JsonNode maxNodes = tree.get("maxNodes");
        if (maxNodes == null || !maxNodes.isIntegralNumber() || !maxNodes.canConvertToInt()) {
            throw invalid("a quota limit needs maxNodes, a whole number");
        }
        return bind(tree, QuotaLimit.class);
    });

    static void preemption(PoolKey key, PreemptionFact fact) {
        if (blank(fact.reclaimId())) {
            throw invalid("reclaimId is required");
        }
        pool(key, fact.pool());
        nodeName(fact.node());
    }

    static void availability(ZoneTypeKey key, FleetAvailability availability) {
        if (!key.equals(availability.key())) {
            throw new Rejection(Code.KEY_MISMATCH, "key '" + key + "' does not match " + availability.key());
        }
    }
}
