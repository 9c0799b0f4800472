package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the platform may take a pool's nodes out of service ({@code spec.disruption}): its budgets, in Karpenter's shape.
 * Not in the reference.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Disruption(List<Budget> budgets, String consolidateAfter, String expireAfter) {

    /** Budgets alone; idle nodes consolidated after the platform's default time. */
    public Disruption(List<Budget> budgets) {
        this(budgets, null, null);
    }

    /** Budgets and consolidation; nodes never expire. */
    public Disruption(List<Budget> budgets, String consolidateAfter) {
        this(budgets, consolidateAfter, null);
    }

    /** The four voluntary disruptions a budget governs. */
    public static final String SCALE_DOWN = "ScaleDown";

    public static final String RECONFIGURE = "Reconfigure";
    public static final String UNHEALTHY = "Unhealthy";
    public static final String EXPIRED = "Expired";
    public static final List<String> REASONS = List.of(SCALE_DOWN, RECONFIGURE, UNHEALTHY, EXPIRED);

    /** {@code expireAfter}'s word for nodes that never expire (Karpenter's), as when it is absent. */
    public static final String NEVER = "Never";

    /** The longest {@code expireAfter}: a year. */
    public static final Duration MAX_EXPIRY = Duration.ofHours(8760);

    private static final Pattern EXPIRY = Pattern.compile("^(?:([0-9]{1,5})h)?(?:([0-9]{1,5})m)?(?:([0-9]{1,5})s)?$");

    /** The longest {@code duration} (a month of 31 days) and {@code window}. */
    public static final Duration MAX_DURATION = Duration.ofHours(744);

    public static final Duration MAX_WINDOW = Duration.ofHours(24);

    private static final Pattern DURATION = Pattern.compile("^(?:([0-9]{1,3})h)?(?:([0-9]{1,5})m)?(?:([0-9]{1,5})s)?$");

    /**
     * One budget: at most {@code nodes} (a count or a percentage of the desired nodes) out of service at once for the
     * {@code reasons} it names (all when none), while it is in force ({@code duration} after each match of
     * {@code schedule}, or always), and at most {@code maxPerWindow} disruptions started within any {@code window}.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"nodes", "schedule", "duration", "reasons", "maxPerWindow", "window"})
    public record Budget(
            String nodes,
            String schedule,
            String duration,
            List<String> reasons,
            Integer maxPerWindow,
            String window) {}

    /** A duration as a budget writes it ({@code 1h30m}, {@code 90s}), or null when absent or malformed. */
    public static Duration duration(String text) {
        return parsed(DURATION, text);
    }

    /** How old a node may grow before it is rotated ({@code expireAfter}), or null when it never expires. */
    public static Duration expiry(String text) {
        return NEVER.equals(text) ? null : parsed(EXPIRY, text);
    }

    /** Why {@code text} is not an {@code expireAfter}, or null when it is one (or absent). */
    public static String expiryError(String text) {
        return NEVER.equals(text)
                ? null
                : error(
                        expiry(text),
                        text,
                        MAX_EXPIRY,
                        "\"Never\" or a duration of hours, minutes and seconds, such as 720h");
    }

    /** Why {@code text} is not a budget's duration of at most {@code max}, or null when it is one (or absent). */
    public static String durationError(String text, Duration max) {
        return error(duration(text), text, max, "a duration of hours, minutes and seconds, such as 1h30m");
    }

    private static Duration parsed(Pattern pattern, String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        Matcher m = pattern.matcher(text);
        if (!m.matches()) {
            return null;
        }
        return Duration.ofHours(part(m.group(1))).plusMinutes(part(m.group(2))).plusSeconds(part(m.group(3)));
    }

    private static String error(Duration parsed, String text, Duration max, String shape) {
        if (text == null) {
            return null;
        }
        if (parsed == null) {
            return "must be " + shape;
        }
        if (parsed.isZero()) {
            return "must be longer than zero";
        }
        if (parsed.compareTo(max) > 0) {
            return "must be at most " + max.toHours() + "h";
        }
        return null;
    }

    private static long part(String digits) {
        return digits == null ? 0 : Long.parseLong(digits);
    }
}
