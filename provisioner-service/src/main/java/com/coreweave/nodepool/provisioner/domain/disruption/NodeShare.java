package com.coreweave.nodepool.provisioner.domain.disruption;

import java.util.regex.Pattern;

/**
 * A share of a pool's nodes as a spec writes it, a count ("3") or a percentage ("40%"): a budget's {@code nodes} and
 * {@code lifecycle.maxUnhealthy}, in the CRD schema's pattern.
 */
public final class NodeShare {

    private static final Pattern COUNT = Pattern.compile("[0-9]{1,4}");
    private static final Pattern PERCENT = Pattern.compile("(100|[0-9]{1,2})%");

    private NodeShare() {}

    public static boolean valid(String share) {
        return share != null && (COUNT.matcher(share).matches() || percentage(share));
    }

    public static boolean percentage(String share) {
        return share != null && PERCENT.matcher(share).matches();
    }

    /** How many of {@code poolNodes} the share is, a percentage rounded up or down; 0 for one that is not valid. */
    public static int of(String share, int poolNodes, boolean roundUp) {
        if (percentage(share)) {
            int percent = Integer.parseInt(share.substring(0, share.length() - 1));
            return roundUp ? (poolNodes * percent + 99) / 100 : poolNodes * percent / 100;
        }
        return valid(share) ? Integer.parseInt(share) : 0;
    }
}
