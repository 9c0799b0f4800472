package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ResourceVersionsTest {

    static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    static final long MICROS = NOW.getEpochSecond() * 1_000_000;

    @Test
    void shouldBeTheTimeInMicrosOrOneMoreThanTheCurrentVersion() {
        assertThat(ResourceVersions.next(null, NOW)).isEqualTo(Long.toString(MICROS));
        assertThat(ResourceVersions.next("7", NOW)).isEqualTo(Long.toString(MICROS));
        assertThat(ResourceVersions.next(Long.toString(MICROS + 5), NOW)).isEqualTo(Long.toString(MICROS + 6));
    }

    @Test
    void shouldLetAPreconditionHoldWhenOnlyTheStatusChangedSinceTheClientRead() {
        assertThat(ResourceVersions.holds("100", "100", "130"))
                .as("the last write's version")
                .isTrue();
        assertThat(ResourceVersions.holds("120", "100", "130"))
                .as("a status change's version")
                .isTrue();
        assertThat(ResourceVersions.holds("130", "100", "130"))
                .as("the current version")
                .isTrue();
    }

    @Test
    void shouldRefuseAVersionFromBeforeTheLastWriteOrUnknown() {
        assertThat(ResourceVersions.holds("99", "100", "130")).isFalse();
        assertThat(ResourceVersions.holds("131", "100", "130")).isFalse();
        assertThat(ResourceVersions.holds("L1.2.3", "100", "130")).isFalse();
    }
}
