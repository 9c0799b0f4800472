package com.coreweave.nodepool.schema.resource;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Map;

/**
 * A five-field cron schedule (minute, hour, day of month, month, day of week), in UTC, as a disruption budget's
 * {@code schedule} is written: numbers, {@code *}, ranges {@code a-b}, steps {@code /n}, lists {@code a,b}, and the
 * macros {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight},
 * {@code @hourly}. As in cron, when both day fields are restricted a day matches either. Names of months and days are
 * not accepted. Expressions are at most {@link #MAX_LENGTH} characters, so parsing is bounded.
 */
public final class CronSchedule {

    public static final int MAX_LENGTH = 100;

    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private final String expression;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet daysOfMonth;
    private final BitSet months;
    private final BitSet daysOfWeek;
    private final boolean anyDayOfMonth;
    private final boolean anyDayOfWeek;

    private CronSchedule(String expression, String[] fields) {
        this.expression = expression;
        this.minutes = field(fields[0], 0, 59, "minute");
        this.hours = field(fields[1], 0, 23, "hour");
        this.daysOfMonth = field(fields[2], 1, 31, "day of month");
        this.months = field(fields[3], 1, 12, "month");
        BitSet week = field(fields[4], 0, 7, "day of week");
        if (week.get(7)) {
            week.set(0); // 7 is Sunday too
        }
        this.daysOfWeek = week;
        this.anyDayOfMonth = fields[2].startsWith("*");
        this.anyDayOfWeek = fields[4].startsWith("*");
    }

    /** The schedule {@code expression} says; {@link IllegalArgumentException} saying what is wrong otherwise. */
    public static CronSchedule parse(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("must be a cron expression");
        }
        if (expression.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("must have at most " + MAX_LENGTH + " characters");
        }
        String trimmed = expression.trim();
        String expanded = trimmed.startsWith("@") ? MACROS.get(trimmed) : trimmed;
        if (expanded == null) {
            throw new IllegalArgumentException("unknown macro " + trimmed
                    + ": use @yearly, @annually, @monthly, @weekly, @daily, @midnight or" + " @hourly");
        }
        String[] fields = expanded.split("\\s+");
        if (fields.length != 5) {
            throw new IllegalArgumentException(
                    "must have 5 fields (minute hour day-of-month month day-of-week), has " + fields.length);
        }
        return new CronSchedule(trimmed, fields);
    }

    /** Why {@code expression} is not a schedule, or null when it is one. */
    public static String error(String expression) {
        try {
            parse(expression);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** Whether the schedule matches the minute {@code at} falls in. */
    public boolean matches(Instant at) {
        ZonedDateTime t = at.atZone(ZoneOffset.UTC);
        return minutes.get(t.getMinute()) && hours.get(t.getHour()) && dayMatches(t);
    }

    /**
     * The latest minute at or before {@code at} that the schedule matches and that is not older than {@code lookback},
     * or null. Days and hours that do not match are skipped whole, so it costs at most a step per hour looked back.
     */
    public Instant lastMatch(Instant at, Duration lookback) {
        ZonedDateTime t = at.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
        ZonedDateTime oldest = at.minus(lookback).atZone(ZoneOffset.UTC);
        while (!t.isBefore(oldest)) {
            if (!dayMatches(t)) {
                t = t.truncatedTo(ChronoUnit.DAYS).minusMinutes(1);
            } else if (!hours.get(t.getHour())) {
                t = t.truncatedTo(ChronoUnit.HOURS).minusMinutes(1);
            } else {
                int minute = minutes.previousSetBit(t.getMinute());
                if (minute >= 0) {
                    ZonedDateTime match = t.withMinute(minute);
                    return match.isBefore(oldest) ? null : match.toInstant();
                }
                t = t.truncatedTo(ChronoUnit.HOURS).minusMinutes(1);
            }
        }
        return null;
    }

    private boolean dayMatches(ZonedDateTime t) {
        if (!months.get(t.getMonthValue())) {
            return false;
        }
        boolean dom = daysOfMonth.get(t.getDayOfMonth());
        boolean dow = daysOfWeek.get(t.getDayOfWeek().getValue() % 7);
        // Vixie cron's rule: a day field written with '*' (a step too) restricts together with the other one.
        return anyDayOfMonth || anyDayOfWeek ? dom && dow : dom || dow;
    }

    private static BitSet field(String text, int min, int max, String name) {
        BitSet set = new BitSet(max + 1);
        for (String part : text.split(",", -1)) {
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), 1, max, name + " step");
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            } else if (range.indexOf('-') > 0) {
                int dash = range.indexOf('-');
                from = number(range.substring(0, dash), min, max, name);
                to = number(range.substring(dash + 1), min, max, name);
                if (from > to) {
                    throw new IllegalArgumentException(name + " range " + range + " goes backwards");
                }
            } else {
                from = number(range, min, max, name);
                to = slash >= 0 ? max : from;
            }
            for (int v = from; v <= to; v += step) {
                set.set(v);
            }
        }
        return set;
    }

    private static int number(String text, int min, int max, String name) {
        if (text.isEmpty() || text.length() > 2 || !text.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(
                    name + " must be a number within " + min + " and " + max + ", was \"" + text + "\"");
        }
        int value = Integer.parseInt(text);
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be within " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    @Override
    public String toString() {
        return expression;
    }
}
