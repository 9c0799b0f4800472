package com.coreweave.nodepool.schema.topics;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The inbound topics an org publishes to on a secured broker, one per org and inbound topic: {@code <topic>.<org>}
 * (e.g. {@code nodepool-requested.demo}). The broker lets only the org's principal write its own (an ACL per topic), so
 * the topic a record arrives on names its org: the key's org must match it (docs/security.md, "The org is bound to the
 * principal"). The readers of each inbound topic read its org topics too.
 */
public final class TenantTopics {

    /** The topics platform teams write; monitoring's node alerts and operators' quotas have principals of their own. */
    public static final List<Topic<?, ?>> INBOUND = List.of(
            Topics.NODEPOOL_REQUESTED,
            Topics.NODE_ACTIVITY_REPORTED,
            Topics.NODEPOOL_CONFIGURATION_REQUESTED,
            Topics.NODE_DELETION_REQUESTED,
            Topics.WORKLOAD_PENDING);

    private static final String SEPARATOR = ".";
    /** An org id as the API takes it: a DNS subdomain, at most 200 characters so the topic name stays within 249. */
    private static final Pattern ORG =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    private static final int MAX_ORG_LENGTH = 200;

    private TenantTopics() {}

    /** The topic {@code org} writes {@code topic}'s records to. */
    public static String of(Topic<?, ?> topic, String org) {
        if (!validOrg(org)) {
            throw new IllegalArgumentException(
                    "'" + org + "' is not an org id (a DNS subdomain of at most " + MAX_ORG_LENGTH + " characters)");
        }
        return topic.name() + SEPARATOR + org;
    }

    /** Every org topic of {@code topic}, for a pattern subscription. */
    public static Pattern pattern(Topic<?, ?> topic) {
        return Pattern.compile(Pattern.quote(topic.name() + SEPARATOR) + ORG.pattern());
    }

    /** The org whose topic of {@code topic} {@code name} is; empty for any other topic (the shared one included). */
    public static Optional<String> orgOf(Topic<?, ?> topic, String name) {
        String prefix = topic.name() + SEPARATOR;
        if (name == null || !name.startsWith(prefix)) {
            return Optional.empty();
        }
        String org = name.substring(prefix.length());
        return validOrg(org) ? Optional.of(org) : Optional.empty();
    }

    /** What the Kafka principal of an org's platform team starts with; the org follows. */
    public static final String PRINCIPAL_PREFIX = "tenant-";

    /** The Kafka principal of {@code org}'s platform team, the one whose ACLs let it write its org topics. */
    public static String principal(String org) {
        if (!validOrg(org)) {
            throw new IllegalArgumentException(
                    "'" + org + "' is not an org id (a DNS subdomain of at most " + MAX_ORG_LENGTH + " characters)");
        }
        return PRINCIPAL_PREFIX + org;
    }

    /**
     * Bytes an org topic keeps per partition before its oldest segment is deleted: the org's share of the broker's disk
     * (docs/security.md, "Limits on what comes in"), whatever it writes.
     */
    public static final long RETENTION_BYTES = 16L * 1024 * 1024;

    /** Segments small enough that the byte bound holds: the broker deletes whole segments, never the active one. */
    public static final long SEGMENT_BYTES = 4L * 1024 * 1024;

    /**
     * The broker configuration of an org's topic of {@code inbound}: as the shared topic (its retention, the broker's
     * timestamps), bounded to {@link #RETENTION_BYTES} per partition in segments of {@link #SEGMENT_BYTES}.
     */
    public static Map<String, String> brokerConfig(Topic<?, ?> inbound) {
        Map<String, String> config = inbound.brokerConfig();
        config.put(Topic.RETENTION_BYTES, Long.toString(RETENTION_BYTES));
        config.put("segment.bytes", Long.toString(SEGMENT_BYTES));
        return config;
    }

    public static boolean validOrg(String org) {
        return org != null && org.length() <= MAX_ORG_LENGTH && ORG.matcher(org).matches();
    }
}
