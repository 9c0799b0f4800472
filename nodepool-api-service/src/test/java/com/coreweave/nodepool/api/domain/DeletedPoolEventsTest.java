package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeletedPoolEventsTest {

    private static final Duration HOUR = Duration.ofHours(1);

    private static DeletedPoolEvents deleted(Duration ago) {
        return new DeletedPoolEvents(NOW.minus(ago), List.of());
    }

    @Test
    void aDeletedPoolsEventsAreForgottenOnceTheRetentionHasPassed() {
        Map<String, DeletedPoolEvents> kept = Map.of(
                "acme/a/u1", deleted(Duration.ofMinutes(59)),
                "acme/b/u2", deleted(HOUR),
                "acme/c/u3", deleted(Duration.ofHours(3)));

        assertThat(DeletedPoolEvents.forgotten(kept, NOW, HOUR, 10))
                .containsExactlyInAnyOrder("acme/b/u2", "acme/c/u3");
    }

    @Test
    void beyondTheBoundTheLongestGoneAreForgottenFirst() {
        Map<String, DeletedPoolEvents> kept = Map.of(
                "acme/a/u1", deleted(Duration.ofMinutes(1)),
                "acme/b/u2", deleted(Duration.ofMinutes(30)),
                "acme/c/u3", deleted(Duration.ofMinutes(10)));

        assertThat(DeletedPoolEvents.forgotten(kept, NOW, HOUR, 2)).containsExactly("acme/b/u2");
    }

    @Test
    void aPoolCreatedAgainUnderTheSameNameKeepsItsEventsApartFromTheDeletedOnes() {
        assertThat(DeletedPoolEvents.key("acme/train", "u1")).isNotEqualTo(DeletedPoolEvents.key("acme/train", "u2"));
        assertThat(DeletedPoolEvents.key("acme/train", "u1")).startsWith("acme/");
    }
}
