package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.coreweave.nodepool.schema.topics.TenantTopics;
import com.coreweave.nodepool.schema.topics.Topic;

/**
 * Where {@link Inputs} read a record: a topic shared by several writers ({@code tenantOrg} null), or an org's own
 * inbound topic ({@code <topic>.<org>}, {@link TenantTopics}), which only that org's principal may write. Inputs tells
 * it from the topic's name, never from the record, so an interpretation may trust it.
 */
public record RecordOrigin(String tenantOrg) {

    public static final RecordOrigin SHARED = new RecordOrigin(null);

    public boolean fromTenantTopic() {
        return tenantOrg != null;
    }

    /**
     * The origin of a record of {@code topic} read from the topic named {@code received}: on an org's own topic its key
     * must parse and be of that org, else the key's own code or {@link Code#FORBIDDEN}.
     */
    static RecordOrigin checked(Topic<?, ?> topic, String received, String key) {
        String org = TenantTopics.orgOf(topic, received).orElse(null);
        if (org == null) {
            return SHARED;
        }
        // Every inbound topic is keyed by pool (TenantTopics.INBOUND); a parse refuses a bad key with its usual code.
        String keyOrg = ((PoolKey) topic.key(key)).org();
        if (!keyOrg.equals(org)) {
            throw new Rejection(
                    Code.FORBIDDEN, "a record for org " + keyOrg + " on org " + org + "'s topic " + received);
        }
        return new RecordOrigin(org);
    }
}
