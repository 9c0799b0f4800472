package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.systemtest.harness.OtlpCollector.Kind;
import com.coreweave.nodepool.systemtest.harness.OtlpCollector.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code ./stack traces} prints of one trace: its spans as a tree, each after its parent, in start order. */
class TracesTest {

    private static final long MS = 1_000_000;

    @Test
    void printsATraceAsATreeInTheOrderItsSpansStarted() {
        List<Span> trace = List.of(
                new Span(
                        "quota-service",
                        "t1",
                        "c",
                        "b",
                        "quota-service quota-demanded",
                        Kind.CONSUMER,
                        30 * MS,
                        34 * MS),
                new Span("nodepool-api-service", "t1", "a", "", "POST /nodepools", Kind.SERVER, 0, 50 * MS),
                new Span("nodepool-api-service", "t1", "d", "a", "later", Kind.INTERNAL, 20 * MS, 21 * MS),
                new Span(
                        "nodepool-api-service", "t1", "b", "a", "nodepool-requested", Kind.CONSUMER, 10 * MS, 12 * MS));

        assertThat(Traces.tree(trace)).isEqualTo("""
                        trace t1: 4 spans, 2 services, 50 ms
                          +0 ms nodepool-api-service: POST /nodepools (server, 50 ms)
                            +10 ms nodepool-api-service: nodepool-requested (consumer, 2 ms)
                              +30 ms quota-service: quota-service quota-demanded (consumer, 4 ms)
                            +20 ms nodepool-api-service: later (internal, 1 ms)
                        """);
    }
}
