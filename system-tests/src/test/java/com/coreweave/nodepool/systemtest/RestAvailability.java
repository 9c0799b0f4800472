package com.coreweave.nodepool.systemtest;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What REST clients behind a load balancer saw: each request, each attempt it took (a retry on another instance after a
 * refused connection or a 502/503/504, as a Kubernetes Service routes around a pod that is gone), and how it ended.
 * Counted honestly: a request that needed a retry is answered, but its retries are reported.
 */
final class RestAvailability {

    /** The counts at one moment. */
    record Counts(long requests, long retries, long answered, long failed5xx, long unanswered) {

        Counts plus(Counts more) {
            return new Counts(
                    requests + more.requests,
                    retries + more.retries,
                    answered + more.answered,
                    failed5xx + more.failed5xx,
                    unanswered + more.unanswered);
        }

        Counts minus(Counts earlier) {
            return new Counts(
                    requests - earlier.requests,
                    retries - earlier.retries,
                    answered - earlier.answered,
                    failed5xx - earlier.failed5xx,
                    unanswered - earlier.unanswered);
        }

        /** The share of requests answered without a 5xx, retries allowed; 1 when there were none. */
        double availability() {
            return requests == 0 ? 1 : (double) answered / requests;
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "%d requests, %.2f %% answered without a 5xx (%d after %d retries in all), %d ended in a 5xx,"
                            + " %d got no answer",
                    requests,
                    100 * availability(),
                    answered,
                    retries,
                    failed5xx,
                    unanswered);
        }
    }

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong failed5xx = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();

    /** A request is sent again, to another instance. */
    void retry() {
        retries.incrementAndGet();
    }

    /** A request ended with HTTP {@code code}, or with no answer at all ({@code code} -1). */
    void ended(int code) {
        requests.incrementAndGet();
        if (code < 0) {
            unanswered.incrementAndGet();
        } else if (code >= 500) {
            failed5xx.incrementAndGet();
        } else {
            answered.incrementAndGet();
        }
    }

    Counts now() {
        return new Counts(requests.get(), retries.get(), answered.get(), failed5xx.get(), unanswered.get());
    }
}
