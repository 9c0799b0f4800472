package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.QuotaKey;

/**
 * The words a user reads in the {@code Quota} condition and the quota events. Each starts with the reference's own
 * sentence (reference 000 for {@code Under}, 002 for the event messages), then says why in numbers.
 */
public final class QuotaMessages {

    public static final String UNDER = "NodePool is within instance type quota.";

    private QuotaMessages() {}

    /** The reference's {@code CWOverQuota} sentence. */
    public static String overQuota(QuotaKey key) {
        return "NodePool targetNodes pushes you over quota for " + key.instanceType() + " in " + key.zone() + ".";
    }

    /** A scale-up that does not fit: how far over it would go, and what the pool keeps meanwhile. */
    public static String wouldExceed(QuotaKey key, int requested, long wouldUse, int limit, int admitted) {
        return overQuota(key) + " targetNodes " + requested + " would use " + wouldUse + " of " + limit + " "
                + key.instanceType() + " in " + key.zone() + ": " + (wouldUse - limit)
                + " over quota. The pool stays at "
                + admitted + " admitted node(s) and scales up by itself once the whole request fits.";
    }

    /** The org holds more than a quota that was lowered below its usage. */
    public static String aboveLoweredQuota(QuotaKey key, int usage, int limit) {
        return overQuota(key) + " The org's pools hold " + usage + " of " + limit + " " + key.instanceType() + " in "
                + key.zone() + ": " + (usage - limit)
                + " over quota, which was lowered below usage. No node is removed, "
                + "but no pool of this type scales up until usage is within the quota.";
    }

    /** The reference's {@code CWNodePoolQuotaCheckFailed} sentence for a missing quota. */
    public static String notSet(QuotaKey key, int admitted) {
        String sentence = "Quota not found for instance type " + key.instanceType() + " in zone " + key.zone() + ".";
        return admitted == 0
                ? sentence
                : sentence + " The pool keeps its " + admitted
                        + " admitted node(s) but cannot scale up until a quota is set.";
    }

    public static String failed(String error) {
        return "Quota check failed: " + error;
    }

    public static String invalid() {
        return "NodePool is not valid; no quota is checked and no node is admitted.";
    }

    public static String deleting() {
        return "NodePool is being deleted; no node is admitted.";
    }
}
