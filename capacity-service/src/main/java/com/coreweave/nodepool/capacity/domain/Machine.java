package com.coreweave.nodepool.capacity.domain;

import java.time.Instant;
import java.util.Locale;

/**
 * One machine of a zone × instance type as operators see it. Its name is deterministic and DNS-safe (it becomes the
 * node name); while it is {@code ALLOCATED}, {@code allocation} says to which pool incarnation and under which grant.
 */
public record Machine(String name, int index, Status status, Allocation allocation) {

    public enum Status {
        FREE,
        ALLOCATED,
        MAINTENANCE,
        RETIRED
    }

    /** Why a spot machine is being taken back: for reserved demand of the same ledger, or for an operator. */
    public enum Reclaim {
        RESERVED_DEMAND,
        OPERATOR
    }

    /**
     * The pool holding the machine: {@code grantId} is unique per allocation, so a release names exactly the grant it
     * ends. {@code reclaim} is set once a spot reclaim asked for the machine (never asked twice).
     */
    public record Allocation(
            String pool, String poolUid, boolean spot, long grantId, Instant grantedAt, Reclaim reclaim) {}

    /** {@code us-east-04a-gd-8xa100-i128-0007}: lower-case zone, type and a 4-digit (or longer) index. */
    public static String nameOf(String zone, String instanceType, int index) {
        return nameOf(prefix(zone, instanceType), index);
    }

    /** The part of every machine name of a zone and type before its index. */
    static String prefix(String zone, String instanceType) {
        return (zone + "-" + instanceType).toLowerCase(Locale.ROOT) + "-";
    }

    static String nameOf(String prefix, int index) {
        String digits = Integer.toString(index);
        return digits.length() >= 4 ? prefix + digits : prefix + "0".repeat(4 - digits.length()) + digits;
    }

    /**
     * The index of machine {@code name} among {@code 1..count} named with {@code prefix}, or 0 when it is none of them.
     */
    static int indexOf(String prefix, String name, int count) {
        if (name == null || !name.startsWith(prefix)) {
            return 0;
        }
        try {
            int machine = Integer.parseInt(name.substring(prefix.length()));
            return machine >= 1 && machine <= count && nameOf(prefix, machine).equals(name) ? machine : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
