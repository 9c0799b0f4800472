package com.coreweave.nodepool.api.kube;

import java.time.Duration;

/**
 * Ages as kubectl shows them ({@code 45s}, {@code 12m}, {@code 3h5m}, {@code 2d4h}, {@code 400d}): two units at most,
 * the second only while it still says something.
 */
public final class HumanDuration {

    private HumanDuration() {}

    public static String of(Duration age) {
        long s = Math.max(0, age.toSeconds());
        if (s < 120) {
            return s + "s";
        }
        long m = s / 60;
        if (m < 10) {
            return s % 60 == 0 ? m + "m" : m + "m" + (s % 60) + "s";
        }
        if (m < 180) {
            return m + "m";
        }
        long h = m / 60;
        if (h < 8) {
            return m % 60 == 0 ? h + "h" : h + "h" + (m % 60) + "m";
        }
        if (h < 48) {
            return h + "h";
        }
        long d = h / 24;
        if (d < 8) {
            return h % 24 == 0 ? d + "d" : d + "d" + (h % 24) + "h";
        }
        if (d < 365 * 2) {
            return d + "d";
        }
        return d / 365 + "y" + (d % 365 == 0 ? "" : (d % 365) + "d");
    }
}
