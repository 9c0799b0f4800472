package com.coreweave.nodepool.schema.events;

/**
 * The record key of every pool fact: {@code <org>/<pool name>}. Org ids and pool names are DNS labels or subdomains, so
 * neither contains a slash.
 */
public record PoolKey(String org, String pool) {

    public PoolKey {
        if (org == null || org.isBlank() || org.contains("/")) {
            throw new IllegalArgumentException("org must be non-empty and contain no '/': " + org);
        }
        if (pool == null || pool.isBlank() || pool.contains("/")) {
            throw new IllegalArgumentException("pool name must be non-empty and contain no '/': " + pool);
        }
    }

    /** Parses {@code <org>/<pool>}; throws {@link IllegalArgumentException} for anything else. */
    public static PoolKey parse(String key) {
        if (key == null) {
            throw new IllegalArgumentException("key is missing; expected <org>/<pool name>");
        }
        int slash = key.indexOf('/');
        if (slash <= 0 || slash != key.lastIndexOf('/') || slash == key.length() - 1) {
            throw new IllegalArgumentException("key '" + key + "' is not of the form <org>/<pool name>");
        }
        return new PoolKey(key.substring(0, slash), key.substring(slash + 1));
    }

    /** The pool a key stored beside it belongs to, {@code <org>/<pool>/<part>} (a node of its view, say). */
    public static PoolKey ofPart(String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        int end = slash < 0 ? -1 : key.indexOf('/', slash + 1);
        if (end < 0) {
            throw new IllegalArgumentException("key '" + key + "' is not of the form <org>/<pool name>/<part>");
        }
        return parse(key.substring(0, end));
    }

    /** The prefix every key of this org starts with, for range scans. */
    public static String orgPrefix(String org) {
        return org + "/";
    }

    @Override
    public String toString() {
        return org + "/" + pool;
    }
}
