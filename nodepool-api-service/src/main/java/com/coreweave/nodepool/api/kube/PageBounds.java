package com.coreweave.nodepool.api.kube;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * How much one list answer may hold: a page of {@code defaultLimit} objects when the client names no {@code limit}, at
 * most {@code maxLimit} whatever it names (kubectl asks 500), and at most {@code maxBytes} of objects, so a page of
 * large objects is cut early and continued. The client follows {@code continue} for the rest, as with any page.
 */
public record PageBounds(int defaultLimit, int maxLimit, long maxBytes) {

    public PageBounds {
        if (defaultLimit < 1 || maxLimit < defaultLimit || maxBytes < 1) {
            throw new IllegalArgumentException(
                    "a page holds at least one object, and the default is within the maximum");
        }
    }

    /** The page size for a client's {@code limit} (null or 0: none asked). */
    public int limit(Integer asked) {
        return asked == null || asked <= 0 ? defaultLimit : Math.min(asked, maxLimit);
    }

    /**
     * How many of {@code items}, from the first, fit in the byte bound by {@code size} (each measured up to the bound):
     * at least one, so that a list always moves on.
     */
    public <T> int kept(List<T> items, ToLongFunction<T> size) {
        long bytes = 0;
        for (int i = 0; i < items.size(); i++) {
            bytes += size.applyAsLong(items.get(i));
            if (bytes > maxBytes) {
                return Math.max(1, i);
            }
        }
        return items.size();
    }
}
