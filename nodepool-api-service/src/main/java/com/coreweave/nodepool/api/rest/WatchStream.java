package com.coreweave.nodepool.api.rest;

import java.util.ArrayDeque;
import java.util.concurrent.Flow;

/**
 * One watch's events on their way to the client, serialized, in a bounded buffer: a client that reads slower than its
 * objects change (or never reads) fills its own buffer, not the heap. On overflow the buffered events are dropped, the
 * watch ends with an {@code ERROR} event carrying {@code 410 Gone}, and the client lists again, as Kubernetes clients
 * do when a watch expires. Sends only what the subscriber asked for, so the HTTP connection's backpressure decides when
 * events leave the buffer.
 */
final class WatchStream implements Flow.Publisher<byte[]> {

    /** The events and bytes every watch together may hold; shared by all watches of the instance. */
    interface Budget {
        boolean reserve(long bytes);

        void release(long bytes);
    }

    private final int maxEvents;
    private final long maxBytes;
    private final Budget budget;
    private final byte[] overflowed;
    private final Runnable onEnd;
    private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
    private long bytes;
    private long demand;
    private boolean ending;
    private boolean ended;
    private boolean draining;
    private Flow.Subscriber<? super byte[]> subscriber;

    /**
     * A stream holding at most {@code maxEvents} events and {@code maxBytes} bytes, within {@code budget}; on overflow
     * it sends {@code overflowed} and ends. {@code onEnd} runs once, however it ends.
     */
    WatchStream(int maxEvents, long maxBytes, Budget budget, byte[] overflowed, Runnable onEnd) {
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
        this.budget = budget;
        this.overflowed = overflowed;
        this.onEnd = onEnd;
    }

    /** Queues one serialized event; a full buffer ends the watch with the overflow event instead. */
    synchronized void send(byte[] event) {
        if (ending) {
            return;
        }
        if (queue.size() >= maxEvents || bytes + event.length > maxBytes || !budget.reserve(event.length)) {
            dropQueued();
            queue.add(overflowed);
            ending = true;
        } else {
            queue.add(event);
            bytes += event.length;
        }
        drain();
    }

    /** Ends the watch once what is queued has been sent. */
    synchronized void complete() {
        ending = true;
        drain();
    }

    /** How many bytes wait for the client now. */
    synchronized long buffered() {
        return bytes;
    }

    @Override
    public synchronized void subscribe(Flow.Subscriber<? super byte[]> s) {
        if (subscriber != null) {
            s.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {}
            });
            s.onError(new IllegalStateException("a watch has one client"));
            return;
        }
        subscriber = s;
        s.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
                synchronized (WatchStream.this) {
                    demand = n <= 0 || Long.MAX_VALUE - demand < n ? Long.MAX_VALUE : demand + n;
                    drain();
                }
            }

            @Override
            public void cancel() {
                synchronized (WatchStream.this) {
                    dropQueued();
                    ending = true;
                    end();
                }
            }
        });
        drain();
    }

    /** Sends what was asked for; re-entrant calls (a subscriber asking for more from onNext) join the loop running. */
    private void drain() {
        if (draining || subscriber == null || ended) {
            return;
        }
        draining = true;
        try {
            while (demand > 0 && !queue.isEmpty() && !ended) {
                byte[] event = queue.poll();
                if (event != overflowed) {
                    bytes -= event.length;
                    budget.release(event.length);
                }
                demand--;
                subscriber.onNext(event);
            }
            if (ending && queue.isEmpty() && !ended) {
                subscriber.onComplete();
                end();
            }
        } finally {
            draining = false;
        }
    }

    private void dropQueued() {
        budget.release(bytes);
        bytes = 0;
        queue.clear();
    }

    private void end() {
        if (!ended) {
            ended = true;
            onEnd.run();
        }
    }
}
