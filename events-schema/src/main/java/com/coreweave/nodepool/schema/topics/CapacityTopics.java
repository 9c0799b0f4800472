package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.TopicTraits.ANY_PARTITION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.API;
import static com.coreweave.nodepool.schema.topics.TopicTraits.CAPACITY;
import static com.coreweave.nodepool.schema.topics.TopicTraits.COMPACTED;
import static com.coreweave.nodepool.schema.topics.TopicTraits.DELETED;
import static com.coreweave.nodepool.schema.topics.TopicTraits.FOREVER;
import static com.coreweave.nodepool.schema.topics.TopicTraits.FORTNIGHT;
import static com.coreweave.nodepool.schema.topics.TopicTraits.KEY_PARTITION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.PREEMPTION;
import static com.coreweave.nodepool.schema.topics.TopicTraits.QUOTA;
import static com.coreweave.nodepool.schema.topics.TopicTraits.WEEK;

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

/**
 * The topics of quota and capacity: limits and demands, the instance-type catalogue, the fleet and its availability,
 * allocations, and spot reclaims with their preemptions. {@link Topics} lists them.
 */
final class CapacityTopics {

    private CapacityTopics() {}

    static final Topic<QuotaKey, QuotaLimit> QUOTA_LIMIT_SET = new Topic<>(
            "quota-limit-set",
            KeyFormat.QUOTA,
            CapacityRecordChecks.QUOTA_LIMIT,
            CapacityRecordChecks::quotaLimit,
            COMPACTED,
            FOREVER,
            QUOTA + " (admin REST), operators",
            ANY_PARTITION,
            "Quota limits set by operators; tombstone removes one.");
    static final Topic<QuotaKey, QuotaDemanded> QUOTA_DEMANDED = new Topic<>(
            "quota-demanded",
            KeyFormat.QUOTA,
            ValueFormat.json(QuotaDemanded.class),
            CapacityRecordChecks::quotaDemanded,
            DELETED,
            WEEK,
            API,
            KEY_PARTITION,
            "Each accepted pool's demand (or its deletion), keyed by the quota it draws on.");
    static final Topic<ZoneTypeKey, CapacityDemanded> CAPACITY_DEMANDED = new Topic<>(
            "capacity-demanded",
            KeyFormat.ZONE_TYPE,
            ValueFormat.json(CapacityDemanded.class),
            CapacityRecordChecks::capacityDemanded,
            DELETED,
            WEEK,
            QUOTA,
            KEY_PARTITION,
            "Each pool's quota decision (or its departure), keyed by the capacity ledger it draws on.");
    static final Topic<String, InstanceType> INSTANCE_TYPE_CATALOGUED = new Topic<>(
            "instance-type-catalogued",
            KeyFormat.INSTANCE_TYPE,
            ValueFormat.json(InstanceType.class),
            CapacityRecordChecks::catalogued,
            COMPACTED,
            FOREVER,
            CAPACITY,
            KEY_PARTITION,
            "The instance-type catalogue.");
    static final Topic<ZoneTypeKey, FleetChangeRequested> FLEET_CHANGE_REQUESTED = new Topic<>(
            "fleet-change-requested",
            KeyFormat.ZONE_TYPE,
            ValueFormat.json(FleetChangeRequested.class),
            CapacityRecordChecks::fleetChange,
            DELETED,
            FORTNIGHT,
            CAPACITY + " (admin REST)",
            KEY_PARTITION,
            "Operators' fleet changes (machines added, removed, in maintenance, spot reclaim).");
    static final Topic<PoolKey, CapacityChecked> CAPACITY_CHECKED = new Topic<>(
            "capacity-checked",
            KeyFormat.POOL,
            ValueFormat.json(CapacityChecked.class),
            CapacityRecordChecks::capacityChecked,
            COMPACTED,
            FOREVER,
            CAPACITY,
            KEY_PARTITION,
            "Each pool's allocation: granted machines, queued nodes and the Capacity reason.");
    static final Topic<PoolKey, SpotReclaimRequested> SPOT_RECLAIM_REQUESTED = new Topic<>(
            "spot-reclaim-requested",
            KeyFormat.POOL,
            ValueFormat.json(SpotReclaimRequested.class),
            CapacityRecordChecks::spotReclaim,
            DELETED,
            WEEK,
            CAPACITY,
            KEY_PARTITION,
            "Spot nodes the capacity ledger needs back for reserved demand or an operator.");
    static final Topic<PoolKey, PreemptionFact> SPOT_PREEMPTION_PROGRESSED = new Topic<>(
            "spot-preemption-progressed",
            KeyFormat.POOL,
            ValueFormat.json(PreemptionFact.class),
            CapacityRecordChecks::preemption,
            DELETED,
            WEEK,
            PREEMPTION,
            KEY_PARTITION,
            "Spot preemption timeline steps.");
    static final Topic<ZoneTypeKey, FleetAvailability> FLEET_AVAILABILITY = new Topic<>(
            "fleet-availability",
            KeyFormat.ZONE_TYPE,
            ValueFormat.json(FleetAvailability.class),
            CapacityRecordChecks::availability,
            COMPACTED,
            FOREVER,
            CAPACITY,
            KEY_PARTITION,
            "Total, free and queued machines of each capacity ledger, written when they change.");
}
