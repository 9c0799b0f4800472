package com.coreweave.nodepool.kit.faults;

/**
 * Where an armed fault applies: a zone, an org, one pool of that org; a part left null matches any. A pool names its
 * org too, so a fault never reaches another org's pool of the same name.
 */
public record FaultScope(String zone, String org, String pool) {

    public FaultScope {
        zone = blankToNull(zone);
        org = blankToNull(org);
        pool = blankToNull(pool);
        if (pool != null && org == null) {
            throw new IllegalArgumentException("a fault scoped to a pool names its org too");
        }
        if (zone == null && org == null) {
            throw new IllegalArgumentException("a fault is scoped to a zone, an org or a pool, never to everything");
        }
    }

    /** Whether a check at this zone, org and pool (each null where the point does not know it) is in scope. */
    public boolean covers(String atZone, String atOrg, String atPool) {
        return (zone == null || zone.equals(atZone))
                && (org == null || org.equals(atOrg))
                && (pool == null || pool.equals(atPool));
    }

    @Override
    public String toString() {
        return (zone == null ? "" : "zone=" + zone)
                + (zone != null && org != null ? "," : "")
                + (org == null ? "" : "org=" + org)
                + (pool == null ? "" : ",pool=" + pool);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
