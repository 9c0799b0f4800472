package com.coreweave.nodepool.kit.streams.time;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * A wall-clock punctuator that ticks only between {@link #start} and {@link #stop}. Kafka Streams commits a task after
 * every punctuation, whether it wrote anything or not, so a punctuator ticking while it has nothing to do would make an
 * idle service commit an empty transaction every commit interval.
 */
public final class Ticker {

    private final ProcessorContext<?, ?> context;
    private final Duration interval;
    private final Punctuator tick;
    private Cancellable scheduled;

    public Ticker(ProcessorContext<?, ?> context, Duration interval, Punctuator tick) {
        this.context = context;
        this.interval = interval;
        this.tick = tick;
    }

    /** A ticker whose tick does {@code work} and stops ticking once the work says nothing is left for it. */
    public static Ticker untilDone(ProcessorContext<?, ?> context, Duration interval, BooleanSupplier work) {
        Ticker[] self = new Ticker[1];
        self[0] = new Ticker(context, interval, t -> {
            if (!work.getAsBoolean()) {
                self[0].stop();
            }
        });
        return self[0];
    }

    /** Ticks every interval from now on; does nothing while it already ticks. */
    public void start() {
        if (scheduled == null) {
            scheduled = context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, tick);
        }
    }

    /** Ticks no more, until the next {@link #start}; may be called from the tick itself. */
    public void stop() {
        if (scheduled != null) {
            scheduled.cancel();
            scheduled = null;
        }
    }
}
