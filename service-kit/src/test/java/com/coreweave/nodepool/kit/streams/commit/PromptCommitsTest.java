package com.coreweave.nodepool.kit.streams.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PromptCommitsTest {

    private final List<String> seen = new ArrayList<>();
    private final MockProcessorContext<String, String> context = new MockProcessorContext<>();
    private Processor<String, String, String, String> processor;

    @BeforeEach
    void wrapAProcessor() {
        PromptCommits.pacing().committed(); // the pacing is the test thread's, shared by every test
        processor = new PromptCommits()
                .<String, String, String, String>wrapProcessorSupplier("upper", () -> new Upper(seen))
                .get();
        processor.init(context);
    }

    @Test
    void theLastRecordOfACaughtUpPollIsProcessedThenCommittedAtOnce() {
        PromptCommits.pacing().polled(2, true);

        process("nodepool-requested", 0, "pool-a");
        assertThat(context.committed()).isFalse();
        process("nodepool-requested", 1, "pool-b");

        assertThat(seen).containsExactly("pool-a", "pool-b");
        assertThat(context.forwarded().get(1).record().value()).isEqualTo("CREATED");
        assertThat(context.committed()).isTrue();
    }

    @Test
    void aCaughtUpPollWhoseRecordsWroteNothingWaitsForTheCommitInterval() {
        PromptCommits.pacing().polled(1, true);

        process("nodepool-requested", 4, "ignored-pool");

        assertThat(context.committed()).isFalse();
    }

    @Test
    void recordsOfAThreadWithABacklogWaitForTheCommitInterval() {
        PromptCommits.pacing().polled(2, false);

        process("nodepool-requested", 2, "pool-a");
        process("nodepool-requested", 3, "pool-b");

        assertThat(seen).containsExactly("pool-a", "pool-b");
        assertThat(context.committed()).isFalse();
    }

    @Test
    void aCaughtUpPollWhoseRecordsWroteOnlyToAChangelogWaitsForTheCommitInterval() {
        PromptCommits.pacing().polled(1, true);

        process("nodepool-requested", 6, "changelog-only");

        assertThat(seen).containsExactly("changelog-only");
        assertThat(context.committed()).isFalse();
    }

    @Test
    void aRecordAPunctuatorForwardsIsNoInputAndAsksForNoCommit() {
        PromptCommits.pacing().polled(1, true);

        process(null, -1, "timer-fired");

        assertThat(seen).containsExactly("timer-fired");
        assertThat(context.committed()).isFalse();
    }

    private void process(String topic, long offset, String pool) {
        context.setRecordMetadata(topic, 0, offset);
        processor.process(new Record<>(pool, "created", 0L));
    }

    private static final class Upper implements Processor<String, String, String, String> {
        private final List<String> seen;
        private ProcessorContext<String, String> context;

        Upper(List<String> seen) {
            this.seen = seen;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, String> record) {
            seen.add(record.key());
            if (record.key().startsWith("changelog")) {
                PromptCommits.pacing().wrote("upper-store-changelog"); // what a store's write reports
            } else if (!record.key().startsWith("ignored")) {
                context.forward(record.withValue(record.value().toUpperCase()));
                PromptCommits.pacing().wrote("upper-case"); // what the thread's producer reports when a sink sends it
            }
        }
    }
}
