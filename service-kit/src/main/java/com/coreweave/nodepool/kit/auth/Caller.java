package com.coreweave.nodepool.kit.auth;

import java.util.Set;

/**
 * Who is calling: a user, the org it acts for, and its roles. {@value #OPERATOR} is the platform operators' role
 * (quotas, fleet, releases, node alerts, reading every org).
 */
public record Caller(String user, String org, Set<String> roles) {

    /** The platform operators' role. */
    public static final String OPERATOR = "operator";

    public Caller {
        user = user == null ? "" : user;
        org = org == null ? "" : org;
        roles = Set.copyOf(roles);
    }

    /** A caller named after its org, an operator or not: for tests and code that knows no user. */
    public Caller(String org, boolean operator) {
        this(org, org, operator ? Set.of(OPERATOR) : Set.of());
    }

    /** Whether the caller has {@code role}. */
    public boolean hasRole(String role) {
        return roles.contains(role);
    }

    /** Whether the caller is a platform operator. */
    public boolean operator() {
        return hasRole(OPERATOR);
    }

    /** Whether the caller may use the operators' APIs: the same as {@link #operator()}. */
    public boolean admin() {
        return operator();
    }
}
