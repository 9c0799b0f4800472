package com.coreweave.nodepool.kit.kafka;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** How a service reaches Kafka and which topics it makes sure exist before it starts processing. */
@ConfigMapping(prefix = "nodepool.kafka")
public interface KafkaSettings {

    /** The brokers; the same value as {@code kafka.bootstrap.servers}. */
    @WithName("bootstrap-servers")
    @WithDefault("${kafka.bootstrap.servers:localhost:9092}")
    String bootstrapServers();

    /** Partitions of every topic this service creates; all topics keyed by pool must agree (co-partitioning). */
    @WithDefault("3")
    int partitions();

    /** Replication factor of created topics: 1 for the local single broker, 3 on a real cluster. */
    @WithName("replication-factor")
    @WithDefault("1")
    short replicationFactor();

    /** {@code min.insync.replicas} of created topics; unset: the broker's default. 2 with replication factor 3. */
    @WithName("min-insync-replicas")
    Optional<Integer> minInsyncReplicas();

    /** Replication factor 1 even on a cluster of three or more brokers (TopicPlacement refuses it otherwise). */
    @WithName("allow-unreplicated")
    @WithDefault("false")
    boolean allowUnreplicated();

    /** The topics (names from the registry) this service reads or writes; created at start-up if missing. */
    List<String> topics();

    /**
     * Whether a stream thread with no backlog commits what it processed and wrote at once instead of at the next commit
     * interval ({@code PromptCommits}): one pool at a time then crosses a hop in a few ms instead of up to a second.
     */
    @WithName("prompt-commits")
    @WithDefault("true")
    boolean promptCommits();

    /** How long start-up waits for the broker before giving up with a clear error. */
    @WithName("startup-timeout")
    @WithDefault("60s")
    Duration startupTimeout();
}
