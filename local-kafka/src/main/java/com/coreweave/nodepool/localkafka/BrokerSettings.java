package com.coreweave.nodepool.localkafka;

import java.util.HashMap;
import java.util.Map;

/** The broker settings of a local cluster, shared by the child-process and the in-process broker. */
final class BrokerSettings {

    /**
     * A single node: replication factor and min ISR 1 for every internal topic (else consumer groups, transactions and
     * share groups wait for replicas that never come), no rebalance delay (tests), and no auto-created topics: services
     * create theirs explicitly, so a typo fails instead of silently creating a topic. A shorter broker session (default
     * 9 s): after a SIGKILL the restarted broker can only register once its old session expired, so this sets how long
     * a crashed broker takes to come back (about 6 s instead of 12 s).
     */
    static final Map<String, String> SINGLE_NODE = Map.ofEntries(
            Map.entry("num.partitions", "3"),
            Map.entry("default.replication.factor", "1"),
            Map.entry("min.insync.replicas", "1"),
            Map.entry("offsets.topic.replication.factor", "1"),
            Map.entry("transaction.state.log.replication.factor", "1"),
            Map.entry("transaction.state.log.min.isr", "1"),
            Map.entry("share.coordinator.state.topic.replication.factor", "1"),
            Map.entry("share.coordinator.state.topic.min.isr", "1"),
            Map.entry("group.initial.rebalance.delay.ms", "0"),
            Map.entry("broker.session.timeout.ms", "4000"),
            Map.entry("broker.heartbeat.interval.ms", "1000"),
            // A killed service's open transaction is aborted soon after it times out, not up to 10 s later: until
            // then its tasks' new owner cannot read their committed offsets.
            Map.entry("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000"),
            Map.entry("auto.create.topics.enable", "false"));

    private BrokerSettings() {}

    /**
     * The settings of each node of a cluster of {@code nodes}: from three on, as a production cluster runs, every topic
     * (internal ones too) has three replicas and takes a write only when two have it, and a replica that fell behind
     * never becomes leader (no unclean election: it would drop acknowledged records).
     */
    static Map<String, String> forCluster(int nodes) {
        if (nodes < 3) {
            return SINGLE_NODE;
        }
        Map<String, String> settings = new HashMap<>(SINGLE_NODE);
        for (String replication : new String[] {
            "default.replication.factor",
            "offsets.topic.replication.factor",
            "transaction.state.log.replication.factor",
            "share.coordinator.state.topic.replication.factor"
        }) {
            settings.put(replication, "3");
        }
        for (String minIsr : new String[] {
            "min.insync.replicas", "transaction.state.log.min.isr", "share.coordinator.state.topic.min.isr"
        }) {
            settings.put(minIsr, "2");
        }
        settings.put("unclean.leader.election.enable", "false");
        return Map.copyOf(settings);
    }
}
