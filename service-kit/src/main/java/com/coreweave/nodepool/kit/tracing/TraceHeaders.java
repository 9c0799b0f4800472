package com.coreweave.nodepool.kit.tracing;

import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The W3C trace context ({@code traceparent}, {@code tracestate}) of a Kafka record, in its headers. Headers come from
 * outside too (platform teams publish with any client), so they are read with bounds: a header longer than its bound is
 * ignored, and a missing or malformed {@code traceparent} gives no parent (a new trace). They are never used for
 * anything but tracing.
 */
public final class TraceHeaders {

    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    /** Version 00 takes 55 characters; later versions may append fields, which the propagator ignores. */
    static final int MAX_TRACEPARENT = 128;

    /** The W3C recommendation: propagate at least 512 characters of {@code tracestate}; a longer one is dropped. */
    static final int MAX_TRACESTATE = 512;

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private static final TextMapGetter<Headers> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers headers) {
            return List.of(TRACEPARENT, TRACESTATE);
        }

        @Override
        public String get(Headers headers, String name) {
            if (headers == null) {
                return null;
            }
            Header header = headers.lastHeader(name);
            int bound = TRACEPARENT.equals(name) ? MAX_TRACEPARENT : MAX_TRACESTATE;
            if (header == null || header.value() == null || header.value().length > bound) {
                return null;
            }
            return new String(header.value(), StandardCharsets.UTF_8);
        }
    };

    private static final TextMapSetter<Headers> SETTER =
            (headers, name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8));

    private TraceHeaders() {}

    /** The remote parent {@code headers} name; {@link Context#root()} when they name none (or none readable). */
    static Context parent(Headers headers) {
        return W3C.extract(Context.root(), headers, GETTER);
    }

    /** Whether {@code headers} carry a {@code traceparent} (readable or not). */
    static boolean present(Headers headers) {
        return headers.lastHeader(TRACEPARENT) != null;
    }

    /** {@code headers} without any trace context: themselves when they carry none, else a copy. */
    static Headers without(Headers headers) {
        if (headers.lastHeader(TRACEPARENT) == null && headers.lastHeader(TRACESTATE) == null) {
            return headers;
        }
        return copyWithout(headers);
    }

    /** A copy of {@code headers} carrying {@code span} as the trace context, in place of any they carried. */
    public static Headers with(Headers headers, SpanContext span) {
        Headers stamped = copyWithout(headers);
        W3C.inject(Context.root().with(Span.wrap(span)), stamped, SETTER);
        return stamped;
    }

    private static Headers copyWithout(Headers headers) {
        Headers copy = StreamsInternals.headers(headers.toArray());
        copy.remove(TRACEPARENT);
        copy.remove(TRACESTATE);
        return copy;
    }

    /**
     * {@code headers} carrying the current span's trace context, in a copy in place of any they carried; themselves
     * when no span is current or tracing is off.
     */
    public static Headers withCurrent(Headers headers) {
        if (ServiceTracer.tracer() == null) {
            return headers;
        }
        SpanContext current = Span.current().getSpanContext();
        return current.isValid() ? with(headers, current) : headers;
    }
}
