package com.coreweave.nodepool.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WatchStreamTest {

    private static final byte[] GONE = "ERROR 410".getBytes(StandardCharsets.UTF_8);

    /** The instance's shared budget, as WatchLimits keeps it. */
    private final AtomicLong budgetUsed = new AtomicLong();

    private final WatchStream.Budget budget = new WatchStream.Budget() {
        @Override
        public boolean reserve(long bytes) {
            if (budgetUsed.get() + bytes > 1_000) {
                return false;
            }
            budgetUsed.addAndGet(bytes);
            return true;
        }

        @Override
        public void release(long bytes) {
            budgetUsed.addAndGet(-bytes);
        }
    };
    private final AtomicInteger ended = new AtomicInteger();

    /** A client that asks for {@code n} events at a time when told to. */
    private static final class Client implements Flow.Subscriber<byte[]> {
        final List<String> got = new ArrayList<>();
        boolean completed;
        Flow.Subscription subscription;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
        }

        @Override
        public void onNext(byte[] item) {
            got.add(new String(item, StandardCharsets.UTF_8));
        }

        @Override
        public void onError(Throwable t) {
            throw new AssertionError(t);
        }

        @Override
        public void onComplete() {
            completed = true;
        }
    }

    private static byte[] event(int i) {
        return ("event-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eventsLeaveOnlyAsTheClientAsksForThemAndInOrder() {
        WatchStream stream = new WatchStream(10, 10_000, budget, GONE, ended::incrementAndGet);
        Client client = new Client();
        stream.subscribe(client);
        stream.send(event(1));
        stream.send(event(2));
        stream.send(event(3));
        assertThat(client.got).isEmpty();

        client.subscription.request(2);
        assertThat(client.got).containsExactly("event-1", "event-2");
        client.subscription.request(5);
        stream.send(event(4));
        assertThat(client.got).containsExactly("event-1", "event-2", "event-3", "event-4");
        assertThat(budgetUsed.get()).as("what left gave its bytes back").isZero();
    }

    @Test
    void aClientThatNeverReadsGetsTheWatchEndedWith410AndHoldsNoMoreThanItsBuffer() {
        WatchStream stream = new WatchStream(5, 10_000, budget, GONE, ended::incrementAndGet);
        Client client = new Client();
        stream.subscribe(client);
        for (int i = 0; i < 1_000; i++) {
            stream.send(event(i));
        }
        assertThat(stream.buffered()).as("the dropped events hold nothing").isZero();
        assertThat(budgetUsed.get()).isZero();

        client.subscription.request(Long.MAX_VALUE);
        assertThat(client.got).containsExactly("ERROR 410");
        assertThat(client.completed).isTrue();
        assertThat(ended.get()).isEqualTo(1);
    }

    @Test
    void aWatchPastItsBytesOrTheInstancesBudgetEndsToo() {
        WatchStream small = new WatchStream(1_000, 20, budget, GONE, ended::incrementAndGet);
        Client client = new Client();
        small.subscribe(client);
        small.send(event(1));
        small.send(event(2));
        small.send(event(3));
        client.subscription.request(10);
        assertThat(client.got).containsExactly("ERROR 410");

        budgetUsed.set(995);
        WatchStream starved = new WatchStream(1_000, 10_000, budget, GONE, ended::incrementAndGet);
        Client other = new Client();
        starved.subscribe(other);
        starved.send(event(1));
        other.subscription.request(10);
        assertThat(other.got).as("the instance's budget is spent").containsExactly("ERROR 410");
        assertThat(ended.get()).isEqualTo(2);
    }

    @Test
    void aClientThatGoesAwayGivesItsBufferAndPlaceBackOnce() {
        WatchStream stream = new WatchStream(10, 10_000, budget, GONE, ended::incrementAndGet);
        Client client = new Client();
        stream.subscribe(client);
        stream.send(event(1));
        assertThat(budgetUsed.get()).isPositive();

        client.subscription.cancel();
        client.subscription.cancel();
        stream.send(event(2));
        assertThat(budgetUsed.get()).isZero();
        assertThat(ended.get()).isEqualTo(1);
    }

    @Test
    void aCompletedWatchSendsWhatIsQueuedThenEnds() {
        WatchStream stream = new WatchStream(10, 10_000, budget, GONE, ended::incrementAndGet);
        Client client = new Client();
        stream.subscribe(client);
        stream.send(event(1));
        stream.complete();
        assertThat(client.completed).isFalse();
        client.subscription.request(1);
        assertThat(client.got).containsExactly("event-1");
        assertThat(client.completed).isTrue();
        assertThat(ended.get()).isEqualTo(1);
    }
}
