package com.coreweave.nodepool.kit.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.util.HashMap;
import java.util.Map;

/**
 * Per key, the span of the last step that asked for an output made later, outside any step: at the commit, or when a
 * timer fires. The output then carries that span's trace. Kept in memory only: after a restart, such an output starts a
 * new trace. While tracing is off nothing is kept.
 */
public final class KeyedTraces {

    private final Map<String, SpanContext> causes = new HashMap<>();

    /** The current span becomes the cause of {@code key}'s later output; with none current, it has no cause. */
    public void remember(String key) {
        if (ServiceTracer.tracer() == null) {
            return;
        }
        SpanContext current = Span.current().getSpanContext();
        if (current.isValid()) {
            causes.put(key, current);
        } else if (!causes.isEmpty()) {
            causes.remove(key);
        }
    }

    /** The cause of {@code key}'s output, forgotten; null when it has none. */
    public SpanContext take(String key) {
        return causes.isEmpty() ? null : causes.remove(key);
    }

    /** Forgets every cause. */
    public void clear() {
        causes.clear();
    }
}
