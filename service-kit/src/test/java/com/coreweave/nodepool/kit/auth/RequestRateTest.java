package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestRateTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aBurstGoesThroughThenTheCallerWaitsForTheRate() {
        RequestRate rate = new RequestRate(10, 20, 0);
        for (int i = 0; i < 20; i++) {
            assertThat(rate.take(0)).as("request %d of the burst", i).isZero();
        }
        assertThat(rate.take(0)).as("past the burst: retry after a second").isEqualTo(1);
        assertThat(rate.take(SECOND / 10))
                .as("a tenth of a second later one more may go")
                .isZero();
        assertThat(rate.take(SECOND / 10)).isEqualTo(1);
    }

    @Test
    void aQuietCallerGetsItsBurstBackButNoMore() {
        RequestRate rate = new RequestRate(1, 3, 0);
        for (int i = 0; i < 3; i++) {
            rate.take(0);
        }
        assertThat(rate.take(0)).isEqualTo(1);
        long later = 3600 * SECOND;
        for (int i = 0; i < 3; i++) {
            assertThat(rate.take(later)).isZero();
        }
        assertThat(rate.take(later))
                .as("an hour of quiet refills the burst, not an hour of requests")
                .isEqualTo(1);
    }

    @Test
    void aSlowRateSaysHowManySecondsToWait() {
        RequestRate rate = new RequestRate(0.2, 1, 0);
        assertThat(rate.take(0)).isZero();
        assertThat(rate.take(0)).isEqualTo(5);
    }
}
