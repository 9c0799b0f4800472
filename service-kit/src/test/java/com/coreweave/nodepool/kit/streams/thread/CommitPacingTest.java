package com.coreweave.nodepool.kit.streams.thread;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommitPacingTest {

    private final CommitPacing pacing = new CommitPacing();

    @Test
    void theLastRecordOfACaughtUpPollAsksForACommitOnce() {
        pacing.polled(3, true);

        assertThat(pacing.processing("facts", 0, 10)).isFalse();
        assertThat(pacing.processing("facts", 1, 4)).isFalse();
        assertThat(pacing.processing("requests", 0, 10)).isTrue();
        assertThat(pacing.processing("requests", 0, 11)).isFalse();
    }

    @Test
    void aRecordPassingThroughSeveralProcessorsCountsOnce() {
        pacing.polled(2, true);

        assertThat(pacing.processing("facts", 0, 10)).isFalse();
        assertThat(pacing.processing("facts", 0, 10)).isFalse();
        assertThat(pacing.processing("facts", 0, 10)).isFalse();
        assertThat(pacing.processing("facts", 0, 11)).isTrue();
        assertThat(pacing.processing("facts", 0, 11)).isFalse();
    }

    @Test
    void aThreadWithABacklogWaitsForTheInterval() {
        long offset = 0;
        for (int poll = 0; poll < 5; poll++) {
            pacing.polled(100, false);
            for (int record = 0; record < 100; record++) {
                assertThat(pacing.processing("requests", 0, offset++))
                        .as("poll %d record %d", poll, record)
                        .isFalse();
            }
        }
    }

    @Test
    void thePollThatEndsABacklogIsCommittedAtOnce() {
        pacing.polled(2, false);
        pacing.processing("requests", 0, 0);
        pacing.processing("requests", 0, 1);
        pacing.polled(2, true);

        assertThat(pacing.processing("requests", 0, 2)).isFalse();
        assertThat(pacing.processing("requests", 0, 3)).isTrue();
    }

    @Test
    void anEmptyPollChangesNothing() {
        pacing.polled(1, true);
        pacing.polled(0, false);

        assertThat(pacing.processing("requests", 0, 0)).isTrue();
    }

    @Test
    void writesWaitForACommitUntilOneGoesThrough() {
        pacing.polled(1, false);
        assertThat(pacing.awaitedWrites()).isFalse();
        pacing.wrote("capacity-demanded");
        pacing.polled(1, true);
        assertThat(pacing.awaitedWrites())
                .as("written while behind, not committed yet")
                .isTrue();

        pacing.committed();

        assertThat(pacing.awaitedWrites()).isFalse();
    }

    @Test
    void aStoresChangelogIsNotAwaited() {
        pacing.wrote("quota-service-quota-ledgers-changelog");

        assertThat(pacing.awaitedWrites()).isFalse();
    }

    @Test
    void anOutputHeldForTheCommitIsAwaited() {
        pacing.held();

        assertThat(pacing.awaitedWrites()).isTrue();
    }

    @Test
    void actionsAfterACommitRunOnceItWentThroughAndNeverAfterAnAbort() {
        List<String> ran = new ArrayList<>();
        pacing.wrote("nodepool-request-decided");
        pacing.afterCommit(() -> ran.add("first"));
        pacing.aborted();
        pacing.committed();
        assertThat(ran).as("an aborted transaction's actions are void").isEmpty();

        pacing.afterCommit(() -> ran.add("second"));
        pacing.afterCommit(() -> {
            throw new IllegalStateException("a caller gone");
        });
        pacing.afterCommit(() -> ran.add("third"));
        pacing.committed();
        pacing.committed();

        assertThat(ran).containsExactly("second", "third");
    }

    @Test
    void actionsAfterACommitAreDroppedWhereTheProducerReportsNoCommit() {
        List<String> ran = new ArrayList<>();
        pacing.afterCommit(() -> ran.add("never"));
        pacing.committed();

        assertThat(ran).isEmpty();
    }

    @Test
    void aRecordNeverProcessedDoesNotStopLaterPromptCommits() {
        pacing.polled(2, true);
        pacing.processing("requests", 0, 0);
        pacing.polled(1, true);

        assertThat(pacing.processing("requests", 0, 2)).isTrue();
    }
}
