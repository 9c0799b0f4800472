package com.coreweave.nodepool.kit.streams.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Only the open-iterator race is read again; every other failure reaches the caller. */
class IteratorRaceTest {

    static NullPointerException thrownAt(String className, String method) {
        NullPointerException e =
                new NullPointerException("Cannot invoke \"Object.hashCode()\" because \"key\" is null");
        e.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("java.util.concurrent.ConcurrentHashMap", "replaceNode", null, 1125),
            new StackTraceElement(className, method, null, 68),
        });
        return e;
    }

    @Test
    void aReadWhoseIteratorCloseLostTheRaceIsReadAgainOnce() {
        AtomicInteger reads = new AtomicInteger();
        String answer = IteratorRace.retried(() -> {
            if (reads.incrementAndGet() == 1) {
                throw thrownAt("org.apache.kafka.streams.internals.metrics.OpenIterators", "remove");
            }
            return "records";
        });
        assertThat(answer).isEqualTo("records");
        assertThat(reads.get()).isEqualTo(2);
    }

    @Test
    void anyOtherNullPointerIsTheCallersAndNotRetried() {
        AtomicInteger reads = new AtomicInteger();
        assertThatThrownBy(() -> IteratorRace.retried(() -> {
                    reads.incrementAndGet();
                    throw thrownAt("com.coreweave.nodepool.Ledger", "load");
                }))
                .isInstanceOf(NullPointerException.class);
        assertThat(reads.get()).isEqualTo(1);
    }
}
