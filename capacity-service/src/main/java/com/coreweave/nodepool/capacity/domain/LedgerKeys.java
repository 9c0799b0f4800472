package com.coreweave.nodepool.capacity.domain;

import com.coreweave.nodepool.kit.streams.store.PrefixedRecords;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;

/**
 * The keys of one ledger's records in the {@code ledgers} store ({@link PrefixedRecords}): the head under
 * {@code <zone>/<type>}, the key the ledger's inputs carry, every other record under {@code <zone>/<type>/...}.
 *
 * <ul>
 *   <li>A prefix scan of {@code <zone>/<type>/} finds every record but the head.
 *   <li>A type name holds no '/', so no ledger's prefix is another's.
 * </ul>
 */
public final class LedgerKeys {

    private LedgerKeys() {}

    public static String head(ZoneTypeKey ledger) {
        return ledger.toString();
    }

    /** The prefix of every record of the ledger but its head. */
    public static String entries(ZoneTypeKey ledger) {
        return PrefixedRecords.members(head(ledger));
    }

    static String pool(ZoneTypeKey ledger, String pool) {
        return entries(ledger) + "p/" + pool;
    }

    /** A machine a pool holds, under the pool's key: {@code .../p/<org>/<pool>/g/<grant id>}. */
    static String held(ZoneTypeKey ledger, String pool, long grantId) {
        return pool(ledger, pool) + "/g/" + grantId;
    }

    static String machine(ZoneTypeKey ledger, int index) {
        return entries(ledger) + "m/" + index;
    }

    /** The prefix of the ledger's remembered fleet changes, numbered in the order they were applied. */
    public static String changes(ZoneTypeKey ledger) {
        return entries(ledger) + "f/";
    }

    static String change(ZoneTypeKey ledger, long number) {
        return changes(ledger) + String.format("%012d", number);
    }
}
