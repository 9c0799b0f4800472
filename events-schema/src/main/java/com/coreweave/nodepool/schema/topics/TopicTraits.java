package com.coreweave.nodepool.schema.topics;

import java.time.Duration;

/** The words the topic families are declared in: retentions, cleanup, how records are partitioned, their owners. */
final class TopicTraits {

    private TopicTraits() {}

    static final Duration WEEK = Duration.ofDays(7);
    static final Duration FORTNIGHT = Duration.ofDays(14);
    static final Duration DAY = Duration.ofDays(1);
    /** Kept long enough for a quarter's review, as audit trails commonly are. */
    static final Duration AUDIT_RETENTION = Duration.ofDays(90);

    static final Duration FOREVER = null;
    static final boolean COMPACTED = true;
    static final boolean DELETED = false;
    /** Written by parties outside the services, with any client: records arrive on any partition. */
    static final boolean ANY_PARTITION = true;
    /** Written only by the services' Java producers and Streams apps: each record is on its key's partition. */
    static final boolean KEY_PARTITION = false;

    static final String API = "nodepool-api-service";
    static final String QUOTA = "quota-service";
    static final String CAPACITY = "capacity-service";
    static final String PROVISIONER = "provisioner-service";
    static final String PREEMPTION = "preemption-service";

    /** The dead letters of an inbound topic: records as received, the reason in headers. */
    static Topic<String, byte[]> deadLetters(Topic<?, ?> of, String owner, String description) {
        return new Topic<>(
                of.deadLetterName(),
                KeyFormat.AS_RECEIVED,
                ValueFormat.raw(),
                RecordCheck.none(),
                DELETED,
                FORTNIGHT,
                owner,
                KEY_PARTITION,
                description);
    }
}
