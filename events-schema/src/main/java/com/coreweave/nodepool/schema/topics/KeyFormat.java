package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.util.function.Function;

/** The form of a topic's record keys: parses a key or refuses it as {@link Code#INVALID_KEY}. */
public record KeyFormat<K>(String description, Function<String, K> parser) {

    public static final KeyFormat<PoolKey> POOL = new KeyFormat<>("<org>/<pool>", PoolKey::parse);
    /** A workload of an org: the same shape as a pool's key. */
    public static final KeyFormat<PoolKey> WORKLOAD = new KeyFormat<>("<org>/<workload>", PoolKey::parse);

    public static final KeyFormat<QuotaKey> QUOTA = new KeyFormat<>("<org>/<zone>/<instanceType>", QuotaKey::parse);
    public static final KeyFormat<ZoneTypeKey> ZONE_TYPE = new KeyFormat<>("<zone>/<instanceType>", ZoneTypeKey::parse);
    public static final KeyFormat<String> INSTANCE_TYPE = name("<instanceType>");
    public static final KeyFormat<String> RELEASE_TRAIN = new KeyFormat<>("<releaseTrain>", key -> {
        if (!Image.RELEASE_TRAINS.contains(key)) {
            throw new IllegalArgumentException(
                    "the key must be a release train, one of " + Image.RELEASE_TRAINS + ", was \"" + key + "\"");
        }
        return key;
    });
    /** Dead letters keep the key they arrived with, whatever it is. */
    public static final KeyFormat<String> AS_RECEIVED = new KeyFormat<>("as received", key -> key);

    /** Any non-blank name. */
    public static KeyFormat<String> name(String description) {
        return new KeyFormat<>(description, key -> {
            if (key.isBlank()) {
                throw new IllegalArgumentException("the key must be a non-empty " + description);
            }
            return key;
        });
    }

    public K parse(String key) {
        if (key == null) {
            throw new Rejection(Code.KEY_MISSING, "record has no key; expected " + description);
        }
        try {
            return parser.apply(key);
        } catch (IllegalArgumentException e) {
            throw new Rejection(Code.INVALID_KEY, e.getMessage());
        }
    }
}
