package com.coreweave.nodepool.schema.topics;

/** The keys of {@code audit-events}: the org an event is about, so that one org's events stay in order. */
public final class AuditKeys {

    /** The key of an event with no org: a request refused before its caller was known. */
    public static final String UNAUTHENTICATED = "system:unauthenticated";

    private AuditKeys() {}

    /** The key of an event about {@code org} (null or blank: none known). */
    public static String of(String org) {
        return org == null || org.isBlank() ? UNAUTHENTICATED : org;
    }
}
