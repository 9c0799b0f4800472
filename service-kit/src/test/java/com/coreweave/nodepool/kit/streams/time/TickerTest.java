package com.coreweave.nodepool.kit.streams.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

/** A ticker schedules one punctuator while started and none while stopped, so an idle task never punctuates. */
class TickerTest {

    private final MockProcessorContext<String, String> context = new MockProcessorContext<>();
    private final Ticker ticker = new Ticker(context, Duration.ofSeconds(5), t -> {});

    @Test
    void schedulesNothingUntilStartedAndOnePunctuatorHoweverOftenStarted() {
        assertThat(context.scheduledPunctuators()).isEmpty();

        ticker.start();
        ticker.start();

        assertThat(context.scheduledPunctuators()).hasSize(1);
        assertThat(context.scheduledPunctuators().get(0).getInterval()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void stoppingCancelsAndAStartAfterwardsSchedulesAgain() {
        ticker.start();
        ticker.stop();
        ticker.stop();

        assertThat(context.scheduledPunctuators().get(0).cancelled()).isTrue();

        ticker.start();
        assertThat(context.scheduledPunctuators()).hasSize(2);
        assertThat(context.scheduledPunctuators().get(1).cancelled()).isFalse();
    }

    @Test
    void aTickerUntilDoneStopsOnceItsWorkSaysNothingIsLeft() {
        int[] left = {2};
        Ticker untilDone = Ticker.untilDone(context, Duration.ofSeconds(1), () -> --left[0] > 0);
        untilDone.start();
        var punctuator = context.scheduledPunctuators().get(0);

        punctuator.getPunctuator().punctuate(0L);
        assertThat(punctuator.cancelled()).isFalse();
        punctuator.getPunctuator().punctuate(1_000L);
        assertThat(punctuator.cancelled()).isTrue();
    }
}
