package com.coreweave.nodepool.kit.tenancy;

/**
 * The keys of a store one caller may read: every key, or the keys of one org ({@code <org>/...}). The one test of a key
 * against a caller, for reads of the caller's own instance and for what other instances answer alike.
 */
public record KeyScope(String org) {

    /** Sorts after every key the services use (their keys are ASCII). */
    static final String END = "\uffff";

    /** Every key: an operator's reads, and stores of no tenant's data. */
    public static final KeyScope ALL = new KeyScope(null);

    public static KeyScope ofOrg(String org) {
        if (org == null || org.isEmpty() || org.contains("/")) {
            throw new IllegalArgumentException("an org's scope needs an org name without '/', not \"" + org + "\"");
        }
        return new KeyScope(org);
    }

    public boolean everything() {
        return org == null;
    }

    /** The prefix of every key in scope ({@code <org>/}), or null when every key is. */
    public String prefix() {
        return org == null ? null : org + "/";
    }

    public boolean sees(String key) {
        return org == null || (key != null && key.startsWith(prefix()));
    }

    /**
     * The part of the key range [{@code from}, {@code to}] in scope, as a pair {from, to}, or null when none is: a
     * position a client sent ("continue after this key") can never start a scan in another org.
     */
    public String[] clamp(String from, String to) {
        if (org == null) {
            return new String[] {from, to};
        }
        String lo = from == null || from.compareTo(prefix()) < 0 ? prefix() : from;
        String end = prefix() + END;
        String hi = to == null || to.compareTo(end) > 0 ? end : to;
        return lo.compareTo(hi) > 0 ? null : new String[] {lo, hi};
    }
}
