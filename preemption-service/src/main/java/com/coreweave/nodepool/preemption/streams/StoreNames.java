package com.coreweave.nodepool.preemption.streams;

/** The preemption-service's state stores (all changelogged) and the keys they use. */
final class StoreNames {

    private StoreNames() {}

    /** {@code <org>/<pool>|<node>} → {@code NodeTimeline}: every node's timeline, running or recently finished. */
    static final String TIMELINES = "preemption-timelines";
    /** {@link DueIndex} key → {@code <org>/<pool>|<node>}: the timelines ordered by when they next need attention. */
    static final String DUE = "preemption-due";
    /** {@code <org>/<pool>|<node>} → {@code NodeActivity}: the latest activity report of each node. */
    static final String ACTIVITY = "node-activity";

    /** Node names are DNS subdomains and pool keys contain no '|', so the separator is unambiguous. */
    static String nodeKey(String poolKey, String node) {
        return poolKey + "|" + node;
    }

    /** The prefix of every node key of one pool, for prefix scans. */
    static String poolPrefix(String poolKey) {
        return poolKey + "|";
    }
}
