package com.coreweave.nodepool.kit.streams.commit;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.streams.commit.PromptCommits.PollWatchingConsumer;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The judgement that a poll left its thread caught up, on which a prompt commit waits. */
class CaughtUpTest {

    @Test
    void noLagOrOnlyATransactionMarkerLeftIsCaughtUp() {
        assertThat(PollWatchingConsumer.caughtUp(List.of(OptionalLong.of(0), OptionalLong.of(1))))
                .isTrue();
    }

    @Test
    void twoOffsetsLeftOnAnyPartitionIsBehind() {
        assertThat(PollWatchingConsumer.caughtUp(List.of(OptionalLong.of(0), OptionalLong.of(2))))
                .isFalse();
    }

    @Test
    void aPartitionNotFetchedYetCountsAsNone() {
        assertThat(PollWatchingConsumer.caughtUp(List.of(OptionalLong.empty()))).isTrue();
        assertThat(PollWatchingConsumer.caughtUp(List.of())).isTrue();
    }
}
