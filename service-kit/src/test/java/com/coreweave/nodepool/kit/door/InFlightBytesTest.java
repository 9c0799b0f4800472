package com.coreweave.nodepool.kit.door;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InFlightBytesTest {

    @Test
    void oneOrgCannotHoldMoreThanItsShareAndOthersKeepTheirs() {
        InFlightBytes bytes = new InFlightBytes(10, 25);
        assertThat(bytes.reserve("demo", 6)).isTrue();
        assertThat(bytes.reserve("demo", 5)).as("past demo's 10").isFalse();
        assertThat(bytes.reserve("demo", 4)).isTrue();
        assertThat(bytes.reserve("other", 10)).isTrue();
        assertThat(bytes.heldBy("demo")).isEqualTo(10);
        assertThat(bytes.held()).isEqualTo(20);
    }

    @Test
    void theInstanceTotalBoundsEveryOrgTogether() {
        InFlightBytes bytes = new InFlightBytes(10, 25);
        assertThat(bytes.reserve("a", 10)).isTrue();
        assertThat(bytes.reserve("b", 10)).isTrue();
        assertThat(bytes.reserve("c", 6)).as("past the total of 25").isFalse();
        assertThat(bytes.reserve("c", 5)).isTrue();
    }

    @Test
    void whatIsReleasedMayBeTakenAgainAndAnIdleOrgHoldsNothing() {
        InFlightBytes bytes = new InFlightBytes(10, 25);
        bytes.reserve("demo", 10);
        bytes.release("demo", 10);
        assertThat(bytes.heldBy("demo")).isZero();
        assertThat(bytes.held()).isZero();
        assertThat(bytes.reserve("demo", 10)).isTrue();
    }
}
