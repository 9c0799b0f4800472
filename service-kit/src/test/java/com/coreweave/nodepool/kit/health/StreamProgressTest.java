package com.coreweave.nodepool.kit.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.health.StreamProgress.Position;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class StreamProgressTest {

    private static final TopicPartition DEMANDED_0 = new TopicPartition("quota-demanded", 0);
    private static final TopicPartition DEMANDED_1 = new TopicPartition("quota-demanded", 1);
    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

    private final StreamProgress progress = new StreamProgress(Duration.ofSeconds(60));

    @Test
    void aTaskWithRecordsWaitingAndNoCommitForTheTimeoutIsStalled() {
        Position stuck = new Position("0_0", DEMANDED_0, 40, 45);
        assertThat(progress.stalled(List.of(stuck), T0)).isEmpty();
        assertThat(progress.stalled(List.of(stuck), T0.plusSeconds(59))).isEmpty();
        assertThat(progress.stalled(List.of(stuck), T0.plusSeconds(60))).containsExactly(stuck);
    }

    @Test
    void aTaskThatCommitsNowAndThenIsNotStalledHoweverLongItsBacklog() {
        for (int second = 0; second <= 300; second += 30) {
            Position busy = new Position("0_0", DEMANDED_0, 1000 + second, 5000);
            assertThat(progress.stalled(List.of(busy), T0.plusSeconds(second))).isEmpty();
        }
    }

    @Test
    void aTaskCaughtUpOrWithNothingFetchedIsNotStalled() {
        Position caughtUp = new Position("0_0", DEMANDED_0, 46, 45);
        Position idle = new Position("0_1", DEMANDED_1, -1, -1);
        progress.stalled(List.of(caughtUp, idle), T0);
        assertThat(progress.stalled(List.of(caughtUp, idle), T0.plusSeconds(600)))
                .isEmpty();
    }

    @Test
    void stallsAcrossTheNewTasksOfAReplacedThreadUntilTheCommittedOffsetPassesTheOldOne() {
        progress.stalled(List.of(new Position("0_0", DEMANDED_0, 40, 45)), T0);
        // A replaced thread's new task has not committed anything of its own yet, nor fetched.
        assertThat(progress.stalled(List.of(new Position("0_0", DEMANDED_0, -1, -1)), T0.plusSeconds(30)))
                .isEmpty();
        Position again = new Position("0_0", DEMANDED_0, -1, 45);
        assertThat(progress.stalled(List.of(again), T0.plusSeconds(60))).containsExactly(again);

        Position moved = new Position("0_0", DEMANDED_0, 41, 45);
        assertThat(progress.stalled(List.of(moved), T0.plusSeconds(61))).isEmpty();
        assertThat(progress.stalled(List.of(moved), T0.plusSeconds(120)))
                .as("standing still again")
                .isEmpty();
        assertThat(progress.stalled(List.of(moved), T0.plusSeconds(121))).containsExactly(moved);
    }

    @Test
    void forgetsAPartitionThatMovedToAnotherInstance() {
        progress.stalled(List.of(new Position("0_0", DEMANDED_0, 40, 45)), T0);
        progress.stalled(List.of(), T0.plusSeconds(10));
        Position back = new Position("0_0", DEMANDED_0, 40, 45);
        assertThat(progress.stalled(List.of(back), T0.plusSeconds(61)))
                .as("watched again from its return")
                .isEmpty();
    }
}
