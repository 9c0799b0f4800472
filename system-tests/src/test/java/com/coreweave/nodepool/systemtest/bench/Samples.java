package com.coreweave.nodepool.systemtest.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** Durations of one benchmark, in nanoseconds, and their percentiles (nearest rank). Thread-safe for adding. */
final class Samples {

    private final List<Long> nanos = new ArrayList<>();
    private int errors;

    synchronized void add(long durationNanos) {
        nanos.add(durationNanos);
    }

    synchronized void error() {
        errors++;
    }

    synchronized int count() {
        return nanos.size();
    }

    synchronized int errors() {
        return errors;
    }

    /** The q-th percentile (0 < q <= 100) in milliseconds, nearest rank; NaN when there is no sample. */
    synchronized double percentileMillis(double q) {
        if (nanos.isEmpty()) {
            return Double.NaN;
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(q / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1))) / 1e6;
    }

    synchronized double maxMillis() {
        return nanos.isEmpty() ? Double.NaN : Collections.max(nanos) / 1e6;
    }

    synchronized double meanMillis() {
        return nanos.isEmpty()
                ? Double.NaN
                : nanos.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6;
    }

    static String ms(double millis) {
        if (Double.isNaN(millis)) {
            return "–";
        }
        if (millis >= 10_000) {
            return String.format(Locale.ROOT, "%,.0f", millis);
        }
        return millis >= 100 ? String.format(Locale.ROOT, "%.0f", millis) : String.format(Locale.ROOT, "%.1f", millis);
    }

    static String rate(double perSecond, String unit) {
        if (Double.isNaN(perSecond) || Double.isInfinite(perSecond)) {
            return "–";
        }
        return (perSecond >= 100
                        ? String.format(Locale.ROOT, "%,.0f", perSecond)
                        : String.format(Locale.ROOT, "%.1f", perSecond))
                + " " + unit;
    }

    static String seconds(double seconds) {
        return Double.isNaN(seconds) ? "–" : String.format(Locale.ROOT, "%.1f s", seconds);
    }
}
