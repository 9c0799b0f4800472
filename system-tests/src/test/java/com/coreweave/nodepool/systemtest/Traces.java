package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.OtlpCollector;
import com.coreweave.nodepool.systemtest.harness.OtlpCollector.Span;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A local trace collector for {@code ./stack traces} (with {@code ./stack up --traces}): receives the services' spans
 * over OTLP/HTTP on {@code traces.port} (4318, the OTLP default) and prints each trace as a tree of its spans, with
 * their durations, once no span of it has arrived for {@code traces.quiet-seconds} (and again if later spans join it).
 * Nothing is stored but the collector's last traces; it runs until stopped.
 */
final class Traces {

    private Traces() {}

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.getInteger("traces.port", 4318);
        Duration quiet = Duration.ofSeconds(Integer.getInteger("traces.quiet-seconds", 3));
        OtlpCollector collector = OtlpCollector.start(port);
        System.out.println("collecting traces on " + collector.endpoint() + "/v1/traces; each is printed once "
                + quiet.toSeconds() + " s pass without a span of it (Ctrl-C stops)");
        Map<String, Integer> sizes = new HashMap<>();
        Map<String, Long> changedAt = new HashMap<>();
        Map<String, Integer> printed = new HashMap<>();
        while (true) {
            long now = System.nanoTime();
            for (String traceId : collector.traceIds()) {
                int size = collector.trace(traceId).size();
                if (size == printed.getOrDefault(traceId, 0)) {
                    continue;
                }
                if (!Integer.valueOf(size).equals(sizes.put(traceId, size))) {
                    changedAt.put(traceId, now);
                } else if (now - changedAt.get(traceId) >= quiet.toNanos()) {
                    // A trace printed before grows when a later step joins it (a node's boot, seconds on).
                    System.out.print(
                            (printed.containsKey(traceId) ? "again, grown: " : "") + tree(collector.trace(traceId)));
                    printed.put(traceId, size);
                }
            }
            Thread.sleep(500);
        }
    }

    /** The trace as an indented tree, children after their parent in the order they started. */
    static String tree(List<Span> trace) {
        Map<String, List<Span>> children = new HashMap<>();
        Set<String> ids = new HashSet<>();
        trace.forEach(span -> ids.add(span.spanId()));
        List<Span> roots = new ArrayList<>();
        for (Span span : trace) {
            if (span.root() || !ids.contains(span.parentSpanId())) {
                roots.add(span);
            } else {
                children.computeIfAbsent(span.parentSpanId(), p -> new ArrayList<>())
                        .add(span);
            }
        }
        long start = trace.stream().mapToLong(Span::startNanos).min().orElse(0);
        long end = trace.stream().mapToLong(Span::endNanos).max().orElse(0);
        StringBuilder out = new StringBuilder();
        out.append("trace ")
                .append(trace.isEmpty() ? "?" : trace.get(0).traceId())
                .append(": ")
                .append(trace.size())
                .append(" spans, ")
                .append(services(trace))
                .append(" services, ")
                .append((end - start) / 1_000_000)
                .append(" ms\n");
        roots.sort(Comparator.comparingLong(Span::startNanos));
        for (Span root : roots) {
            append(out, root, children, start, 1);
        }
        return out.toString();
    }

    private static long services(List<Span> trace) {
        return trace.stream().map(Span::service).distinct().count();
    }

    private static void append(StringBuilder out, Span span, Map<String, List<Span>> children, long start, int depth) {
        out.append("  ".repeat(depth))
                .append('+')
                .append((span.startNanos() - start) / 1_000_000)
                .append(" ms ")
                .append(span.service())
                .append(": ")
                .append(span.name())
                .append(" (")
                .append(span.kind().name().toLowerCase(Locale.ROOT))
                .append(", ")
                .append((span.endNanos() - span.startNanos()) / 1_000_000)
                .append(" ms)\n");
        List<Span> next = new ArrayList<>(children.getOrDefault(span.spanId(), List.of()));
        next.sort(Comparator.comparingLong(Span::startNanos));
        for (Span child : next) {
            append(out, child, children, start, depth + 1);
        }
    }
}
