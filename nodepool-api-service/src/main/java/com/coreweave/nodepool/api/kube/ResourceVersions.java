package com.coreweave.nodepool.api.kube;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A pool's {@code metadata.resourceVersion}: the time of a change in epoch microseconds, or one more than the pool's
 * current version if that is not lower. Every change of the object gets one, a write (spec or metadata) and a change of
 * its status alike, so a watch sees each with its own version. Unique and increasing per pool whichever partition or
 * topic the request came through, roughly ordered in time across pools, opaque to clients.
 */
public final class ResourceVersions {

    private ResourceVersions() {}

    /** The version of a change after {@code current} (null for a new pool). */
    public static String next(String current, Instant now) {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, now);
        return Long.toString(current == null ? micros : Math.max(micros, parse(current) + 1));
    }

    /**
     * Whether a write naming {@code given} as its precondition may go ahead: no spec or metadata write happened after
     * the version the client read ({@code lastWrite} at most, {@code current} at least). Only the platform writes
     * status, so a status change in between cannot be lost and is no conflict.
     */
    public static boolean holds(String given, String lastWrite, String current) {
        if (given.equals(current) || given.equals(lastWrite)) {
            return true;
        }
        long version = parse(given);
        return version > parse(lastWrite) && version <= parse(current);
    }

    /** Whether {@code candidate} is a later version than {@code version}. */
    public static boolean after(String candidate, String version) {
        return version == null || parse(candidate) > parse(version);
    }

    private static long parse(String version) {
        try {
            return version == null ? 0 : Long.parseLong(version);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
