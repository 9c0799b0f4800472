package com.coreweave.nodepool.kit.streams.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KindPeekTest {

    private final KindPeek removals = new KindPeek("fact", Set.of("NodeRemoved"));

    private boolean wanted(String json) {
        return removals.wanted(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRecordOfAKindAskedForIsKept() {
        assertThat(wanted("{\"fact\":\"NodeRemoved\",\"pool\":{\"org\":\"demo\"}}"))
                .isTrue();
    }

    @Test
    void aRecordOfAnotherKindIsSkipped() {
        assertThat(wanted("{\"fact\":\"NodeAssigned\",\"pool\":{\"org\":\"demo\"}}"))
                .isFalse();
    }

    @Test
    void theKindIsFoundAfterOtherPropertiesToo() {
        assertThat(wanted("{\"pool\":{\"fact\":\"NodeRemoved\",\"list\":[1,{\"a\":2}]},\"fact\":\"NodeAssigned\"}"))
                .as("a nested property of the same name is not the kind")
                .isFalse();
    }

    @Test
    void whatCannotBeToldIsKeptForTheFullReadToRefuse() {
        assertThat(wanted("{\"pool\":{\"org\":\"demo\"}}")).as("no kind").isTrue();
        assertThat(wanted("{\"fact\":7}")).as("a kind that is not a string").isTrue();
        assertThat(wanted("{\"fact\":\"NodeAss")).as("cut short").isTrue();
        assertThat(wanted("{garbage")).as("not JSON").isTrue();
        assertThat(wanted("[\"NodeAssigned\"]")).as("not an object").isTrue();
        assertThat(removals.wanted(null)).as("a tombstone").isTrue();
    }
}
