package com.coreweave.nodepool.schema.topics;

import static com.coreweave.nodepool.schema.topics.RecordChecks.blank;
import static com.coreweave.nodepool.schema.topics.RecordChecks.invalid;
import static com.coreweave.nodepool.schema.topics.RecordChecks.sameKey;
import static com.coreweave.nodepool.schema.topics.RecordChecks.segment;

import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.PoolOffer;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import com.coreweave.nodepool.schema.topics.Rejection.Code;

/** What the records of pending workloads must satisfy: verdicts, pools' offers, planned demand. */
final class WorkloadRecordChecks {

    private WorkloadRecordChecks() {}

    static void workloadStatus(PoolKey key, WorkloadStatus status) {
        sameKey(key, status.org(), status.name());
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
}
