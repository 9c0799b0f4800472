package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PageBoundsTest {

    private final PageBounds bounds = new PageBounds(500, 500, 1000);

    @Test
    void aListWithoutALimitGetsTheDefaultPageAndAnyLimitIsCutToTheMaximum() {
        assertThat(bounds.limit(null)).isEqualTo(500);
        assertThat(bounds.limit(0)).isEqualTo(500);
        assertThat(bounds.limit(20)).isEqualTo(20);
        assertThat(bounds.limit(100_000)).isEqualTo(500);
    }

    @Test
    void aPageIsCutBeforeTheObjectThatWouldPassItsBytes() {
        assertThat(bounds.kept(List.of(400L, 400L, 400L), Long::longValue)).isEqualTo(2);
        assertThat(bounds.kept(List.of(400L, 600L, 1L), Long::longValue)).isEqualTo(2);
        assertThat(bounds.kept(List.of(100L, 100L), Long::longValue)).isEqualTo(2);
        assertThat(bounds.kept(List.<Long>of(), Long::longValue)).isZero();
    }

    @Test
    void anObjectLargerThanTheBoundStillMakesAPageOfItsOwn() {
        assertThat(bounds.kept(List.of(5000L, 1L), Long::longValue)).isEqualTo(1);
    }

    @Test
    void boundsThatCannotHoldAnObjectAreRefused() {
        assertThatThrownBy(() -> new PageBounds(0, 500, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PageBounds(600, 500, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
