package com.coreweave.nodepool.schema.resource;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CronScheduleTest {

    /** A Monday. */
    private static final Instant MONDAY_0905 = Instant.parse("2026-11-30T09:05:30Z");

    @Test
    void shouldMatchWorkingHoursOnWeekdaysOnly() {
        CronSchedule weekdays = CronSchedule.parse("0 9 * * 1-5");

        assertThat(weekdays.matches(Instant.parse("2026-11-30T09:00:00Z"))).isTrue();
        assertThat(weekdays.matches(Instant.parse("2026-11-30T09:01:00Z"))).isFalse();
        assertThat(weekdays.matches(Instant.parse("2026-11-29T09:00:00Z")))
                .as("Sunday")
                .isFalse();
        assertThat(weekdays.lastMatch(MONDAY_0905, Duration.ofHours(8)))
                .isEqualTo(Instant.parse("2026-11-30T09:00:00Z"));
        assertThat(weekdays.lastMatch(Instant.parse("2026-11-30T08:59:00Z"), Duration.ofHours(8)))
                .as("Friday's 9:00 is more than 8h ago")
                .isNull();
        assertThat(weekdays.lastMatch(Instant.parse("2026-11-30T08:59:00Z"), Duration.ofDays(4)))
                .isEqualTo(Instant.parse("2026-11-27T09:00:00Z"));
    }

    @Test
    void shouldReadStepsListsRangesAndMacros() {
        assertThat(CronSchedule.parse("*/15 * * * *").matches(Instant.parse("2026-11-30T10:45:00Z")))
                .isTrue();
        assertThat(CronSchedule.parse("*/15 * * * *").matches(Instant.parse("2026-11-30T10:46:00Z")))
                .isFalse();
        assertThat(CronSchedule.parse("5,10-12/2 * * * *").matches(Instant.parse("2026-11-30T10:12:00Z")))
                .isTrue();
        assertThat(CronSchedule.parse("5,10-12/2 * * * *").matches(Instant.parse("2026-11-30T10:11:00Z")))
                .isFalse();
        assertThat(CronSchedule.parse("@daily").matches(Instant.parse("2026-11-30T00:00:00Z")))
                .isTrue();
        assertThat(CronSchedule.parse("0 0 * * 7").matches(Instant.parse("2026-11-29T00:00:00Z")))
                .as("7 is Sunday")
                .isTrue();
        assertThat(CronSchedule.parse("@hourly").lastMatch(MONDAY_0905, Duration.ofMinutes(4)))
                .isNull();
    }

    @Test
    void shouldMatchEitherDayFieldWhenBothAreRestrictedAsCronDoes() {
        CronSchedule firstOrMonday = CronSchedule.parse("0 0 1 * 1");

        assertThat(firstOrMonday.matches(Instant.parse("2026-11-30T00:00:00Z")))
                .as("a Monday")
                .isTrue();
        assertThat(firstOrMonday.matches(Instant.parse("2026-12-01T00:00:00Z")))
                .as("the 1st")
                .isTrue();
        assertThat(firstOrMonday.matches(Instant.parse("2026-12-02T00:00:00Z"))).isFalse();
    }

    @Test
    void shouldLookBackAMonthInFewSteps() {
        CronSchedule yearly = CronSchedule.parse("@yearly");

        assertThat(yearly.lastMatch(Instant.parse("2027-01-31T23:59:00Z"), Duration.ofHours(744)))
                .isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
        assertThat(yearly.lastMatch(Instant.parse("2026-11-30T23:59:00Z"), Duration.ofHours(744)))
                .isNull();
    }

    @Test
    void shouldSayWhatIsWrongWithABadSchedule() {
        assertThat(CronSchedule.error("0 9 * *")).contains("5 fields");
        assertThat(CronSchedule.error("60 * * * *")).contains("minute must be within 0 and 59");
        assertThat(CronSchedule.error("0 9 * * MON")).contains("day of week must be a number");
        assertThat(CronSchedule.error("0 17-9 * * *")).contains("goes backwards");
        assertThat(CronSchedule.error("*/0 * * * *")).contains("step");
        assertThat(CronSchedule.error("@sometimes")).contains("unknown macro");
        assertThat(CronSchedule.error("0 ".repeat(60))).contains("at most 100 characters");
        assertThat(CronSchedule.error("0 9 * * 1-5")).isNull();
    }
}
