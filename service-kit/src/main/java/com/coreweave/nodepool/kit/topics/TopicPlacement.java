package com.coreweave.nodepool.kit.topics;

import com.coreweave.nodepool.kit.kafka.KafkaSettings;
import java.util.Optional;

/**
 * How the topics a service creates are replicated, checked against the cluster before any is created: a replication
 * factor the cluster cannot place is an error, and so is replication factor 1 on a cluster of three or more brokers
 * unless asked for, since one broker's loss would then lose records there was room to keep.
 *
 * @param replicationFactor {@code nodepool.kafka.replication-factor}
 * @param minInsyncReplicas {@code nodepool.kafka.min-insync-replicas}, empty for the broker's default
 * @param allowUnreplicated {@code nodepool.kafka.allow-unreplicated}: replication factor 1 on any cluster
 */
public record TopicPlacement(short replicationFactor, Optional<Integer> minInsyncReplicas, boolean allowUnreplicated) {

    /** A cluster of this many brokers or more is expected to replicate. */
    static final int REPLICATED_CLUSTER = 3;

    /** The placement the service's Kafka settings ask for. */
    public static TopicPlacement of(KafkaSettings settings) {
        return new TopicPlacement(
                settings.replicationFactor(), settings.minInsyncReplicas(), settings.allowUnreplicated());
    }

    /** Why topics cannot be created so on a cluster of {@code brokers} brokers; empty when they can. */
    public Optional<String> problem(int brokers) {
        if (replicationFactor < 1) {
            return Optional.of("nodepool.kafka.replication-factor must be at least 1, not " + replicationFactor);
        }
        if (replicationFactor > brokers) {
            return Optional.of("nodepool.kafka.replication-factor=" + replicationFactor + " needs as many brokers, but "
                    + "the cluster has " + brokers);
        }
        if (minInsyncReplicas.isPresent()
                && (minInsyncReplicas.get() < 1 || minInsyncReplicas.get() > replicationFactor)) {
            return Optional.of("nodepool.kafka.min-insync-replicas must be between 1 and the replication factor ("
                    + replicationFactor + "), not " + minInsyncReplicas.get());
        }
        if (replicationFactor == 1 && brokers >= REPLICATED_CLUSTER && !allowUnreplicated) {
            return Optional.of("refusing to create topics with replication factor 1 on a cluster of " + brokers
                    + " brokers: set nodepool.kafka.replication-factor=3 and nodepool.kafka.min-insync-replicas=2, or "
                    + "nodepool.kafka.allow-unreplicated=true to keep one copy of each record");
        }
        return Optional.empty();
    }

    /** What the start-up log says about topics created so. */
    public String describe() {
        return "replication factor " + replicationFactor
                + minInsyncReplicas.map(m -> ", min.insync.replicas " + m).orElse(", the broker's min.insync.replicas");
    }
}
