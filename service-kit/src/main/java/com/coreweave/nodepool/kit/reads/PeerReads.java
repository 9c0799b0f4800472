package com.coreweave.nodepool.kit.reads;

import java.util.Map;

/**
 * The reads a service answers another of its instances, by name: a CDI bean {@link InternalReadsResource} finds.
 *
 * <ul>
 *   <li>Each read answers {@code /internal/<name>/...} ({@link InternalReads#path}) from this instance's own share.
 *   <li>Each checks the caller itself (its org, or an operator) exactly as the service's public reads do: the caller's
 *       identity travels with a forwarded read, in a peer assertion the asking instance signs.
 * </ul>
 */
public interface PeerReads {

    /** The reads answered, by the name that follows {@code /internal/}. */
    Map<String, PeerRead> reads();

    /**
     * One read: its answer (written as JSON; a {@code GenericEntity} for a collection of polymorphic values, so they
     * keep their type ids), or an {@code ApiException} (404, 403) as a resource would throw.
     */
    @FunctionalInterface
    interface PeerRead {
        Object answer(PeerRequest request);
    }
}
