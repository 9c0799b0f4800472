package com.coreweave.nodepool.kit.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TaskStartWatchTest {

    private static final Instant T0 = Instant.parse("2026-11-27T09:00:00Z");
    private static final TopicPartition P0 = new TopicPartition("nodepool-accepted", 0);
    private static final TopicPartition P1 = new TopicPartition("nodepool-accepted", 1);

    private final TaskStartWatch watch = new TaskStartWatch(Duration.ofSeconds(60));

    @Test
    void aPartitionWithoutARunningTaskForTheTimeoutIsStuck() {
        assertThat(watch.stuck(List.of(P0), 0, T0)).isEmpty();
        assertThat(watch.stuck(List.of(P0), 0, T0.plusSeconds(59))).isEmpty();
        assertThat(watch.stuck(List.of(P0), 0, T0.plusSeconds(60))).containsExactly(P0);
    }

    @Test
    void aTaskThatStartsIsForgottenAndWaitsAfreshNextTime() {
        watch.stuck(List.of(P0), 0, T0);
        assertThat(watch.stuck(List.of(), 0, T0.plusSeconds(30))).isEmpty();
        assertThat(watch.stuck(List.of(P0), 0, T0.plusSeconds(70))).isEmpty();
        assertThat(watch.stuck(List.of(P0), 0, T0.plusSeconds(130))).containsExactly(P0);
    }

    @Test
    void whileAnyStoreRestoresNothingIsStuckAndTheClockStartsAgainWhenRestoringStops() {
        watch.stuck(List.of(P0, P1), 0, T0);
        assertThat(watch.stuck(List.of(P0, P1), 500, T0.plusSeconds(50))).isEmpty();
        assertThat(watch.stuck(List.of(P0, P1), 900, T0.plusSeconds(100))).isEmpty();
        assertThat(watch.stuck(List.of(P0, P1), 900, T0.plusSeconds(159))).isEmpty();
        assertThat(watch.stuck(List.of(P0, P1), 900, T0.plusSeconds(160))).containsExactlyInAnyOrder(P0, P1);
    }
}
