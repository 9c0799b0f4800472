package com.coreweave.nodepool.kit.door;

/**
 * What a request must show before anything of it but its headers is read, by its path alone: every path needs a caller
 * unless it is a health probe or a dashboard asset, and {@code /q/...} (metrics, OpenAPI) needs an operator. A path not
 * named here, a new endpoint included, needs a caller.
 */
public final class Admission {

    /** What a path asks of its caller. */
    public enum Need {
        /** Health probes and the dashboard's static assets: they say nothing about any org. */
        NOTHING,
        /** Any authenticated caller. */
        CALLER,
        /** An operator: metrics and the OpenAPI document name every org or describe every operation. */
        OPERATOR
    }

    private static final String HEALTH = "/q/health";
    private static final String DASHBOARD = "/dashboard";
    private static final String DASHBOARD_API = "/dashboard/api";

    private Admission() {}

    /** What {@code path}, as normalized by the HTTP server (no {@code ..}, no doubled slashes), needs. */
    public static Need of(String path) {
        if (path == null || path.isEmpty()) {
            return Need.CALLER;
        }
        if (under(path, HEALTH)) {
            return Need.NOTHING;
        }
        if (under(path, "/q")) {
            return Need.OPERATOR;
        }
        if (under(path, DASHBOARD) && !path.startsWith(DASHBOARD_API)) {
            return Need.NOTHING;
        }
        return Need.CALLER;
    }

    private static boolean under(String path, String root) {
        return path.equals(root) || path.startsWith(root + "/");
    }
}
