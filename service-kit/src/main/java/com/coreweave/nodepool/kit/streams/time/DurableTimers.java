package com.coreweave.nodepool.kit.streams.time;

import com.coreweave.nodepool.kit.tracing.KeyedTraces;
import com.coreweave.nodepool.kit.tracing.ServiceTracer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The durable timers of a processor: at most one per key (a pool, a node's timeline), filed in a changelogged store
 * under {@link DueIndex} keys and fired by a wall-clock punctuator that range-scans only what has come due. Filing,
 * moving and firing happen in the task's transaction, so a restarted service finds its timers and fires them at their
 * time.
 *
 * <p>The punctuator ticks only while a timer is filed ({@link Ticker}). A timer's firing is traced as a span
 * {@code <application id> timer}, a child of the step that filed it, while the service runs (not after a restart).
 */
public final class DurableTimers {

    private final ProcessorContext<?, ?> context;
    private final KeyValueStore<String, String> index;
    private final Clock clock;
    private final BiConsumer<String, Instant> fire;
    private final Ticker ticker;
    /** The step that filed each timer: what the timer does is traced as its child. */
    private final KeyedTraces filers = new KeyedTraces();

    private DurableTimers(
            ProcessorContext<?, ?> context,
            KeyValueStore<String, String> index,
            Duration interval,
            Clock clock,
            BiConsumer<String, Instant> fire) {
        this.context = context;
        this.index = index;
        this.clock = clock;
        this.fire = fire;
        this.ticker = new Ticker(context, interval, t -> tick());
    }

    /** The timer store to add to the topology: {@link DueIndex} key → the key that is due. */
    public static StoreBuilder<KeyValueStore<String, String>> store(String name) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), Serdes.String());
    }

    /**
     * The timers of {@code store}, checked every {@code interval} of wall-clock time: each key due by then is taken off
     * the index and handed to {@code fire} with the time, which files its next timer with {@link #move} from null.
     */
    public static DurableTimers start(
            ProcessorContext<?, ?> context,
            String store,
            Duration interval,
            Clock clock,
            BiConsumer<String, Instant> fire) {
        DurableTimers timers = new DurableTimers(context, context.getStateStore(store), interval, clock, fire);
        if (timers.anyFiled()) {
            timers.ticker.start();
        }
        return timers;
    }

    /** Moves the timer of {@code key} from {@code filed} to {@code next} (null: none); writes nothing if they agree. */
    public void move(String key, Instant filed, Instant next) {
        if (Objects.equals(filed, next)) {
            return;
        }
        if (filed != null) {
            index.delete(DueIndex.key(filed, key));
            filers.take(key);
        }
        if (next != null) {
            index.put(DueIndex.key(next, key), key);
            filers.remember(key);
            ticker.start();
        }
    }

    private void tick() {
        fireDue(clock.instant());
        if (!anyFiled()) {
            ticker.stop();
        }
    }

    private boolean anyFiled() {
        try (KeyValueIterator<String, String> it = index.all()) {
            return it.hasNext();
        }
    }

    private void fireDue(Instant now) {
        List<KeyValue<String, String>> due = new ArrayList<>();
        try (KeyValueIterator<String, String> it = index.range(DueIndex.FIRST, DueIndex.upTo(now))) {
            it.forEachRemaining(due::add);
        }
        for (KeyValue<String, String> timer : due) {
            index.delete(timer.key);
            ServiceTracer.run(
                    context.applicationId() + " timer", filers.take(timer.value), () -> fire.accept(timer.value, now));
        }
        if (!due.isEmpty()) {
            // What a timer writes (a node registered, a preemption step) is waited for like a processed record's
            // output,
            // which PromptCommits commits at once; a punctuation is not a processed record, so ask here.
            context.commit();
        }
    }
}
