package com.coreweave.nodepool.kit.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FailedAuthenticationsTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void anAddressIsThrottledPastItsBurstAndAgainAllowedAsTimePasses() {
        FailedAuthentications failures = new FailedAuthentications(2, 3, 100);
        for (int i = 0; i < 3; i++) {
            assertThat(failures.failed("10.0.0.1", 0)).isZero();
        }
        assertThat(failures.failed("10.0.0.1", 0)).isEqualTo(1);
        assertThat(failures.failed("10.0.0.2", 0))
                .as("another address has its own budget")
                .isZero();
        assertThat(failures.failed("10.0.0.1", SECOND / 2)).isZero();
        assertThat(failures.failed("10.0.0.1", SECOND / 2)).isEqualTo(1);
    }

    @Test
    void theWaitSaysWhenTheNextFailureIsAllowed() {
        FailedAuthentications failures = new FailedAuthentications(0.1, 1, 100);
        assertThat(failures.failed("a", 0)).isZero();
        assertThat(failures.failed("a", 0)).isEqualTo(10);
        assertThat(failures.failed("a", 10 * SECOND)).isZero();
    }

    @Test
    void noMoreAddressesAreKeptThanTheLimitTheLeastRecentForgottenFirst() {
        FailedAuthentications failures = new FailedAuthentications(1, 1, 3);
        failures.failed("a", 0);
        failures.failed("b", 0);
        failures.failed("c", 0);
        failures.failed("a", 0);
        failures.failed("d", 0);
        assertThat(failures.tracked()).isEqualTo(3);
        assertThat(failures.failed("a", 0))
                .as("a failed recently: still throttled")
                .isEqualTo(1);
        assertThat(failures.failed("b", 0))
                .as("b was forgotten: a fresh budget")
                .isZero();
        for (int i = 0; i < 100_000; i++) {
            failures.failed("spray-" + i, 0);
        }
        assertThat(failures.tracked()).isEqualTo(3);
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new FailedAuthentications(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FailedAuthentications(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
