package com.coreweave.nodepool.kit.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The tracer of the service's steps on Kafka records ({@link TracedProcessors}, {@link #run}), installed at start-up
 * when tracing is on ({@code quarkus.otel.sdk.disabled=false}). Kafka Streams makes its processors by reflection, out
 * of CDI's reach, so they find it here; while none is installed every step runs untraced, at the cost of one read.
 */
@ApplicationScoped
public class ServiceTracer {

    static final String SCOPE = "com.coreweave.nodepool";

    private static volatile Tracer tracer;

    void install(
            @Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event,
            Instance<OpenTelemetry> openTelemetry,
            @ConfigProperty(name = "quarkus.otel.sdk.disabled") boolean disabled) {
        // Looked up only when on: off, start-up does not build the SDK for this.
        use(disabled ? null : openTelemetry.get().getTracer(SCOPE));
    }

    /** Installs {@code installed} (null: tracing off); Quarkus does at start-up, a test without Quarkus itself. */
    public static void use(Tracer installed) {
        tracer = installed;
    }

    /** The installed tracer; null while tracing is off. */
    static Tracer tracer() {
        return tracer;
    }

    /**
     * Runs {@code step} in a span {@code name}, a child of {@code cause} (null: a new trace), for work that its cause
     * asked for earlier, such as a durable timer; runs it untraced while tracing is off.
     */
    public static void run(String name, SpanContext cause, Runnable step) {
        Tracer installed = tracer;
        if (installed == null) {
            step.run();
            return;
        }
        Context parent = cause == null ? Context.root() : Context.root().with(Span.wrap(cause));
        inSpan(
                installed
                        .spanBuilder(name)
                        .setSpanKind(SpanKind.INTERNAL)
                        .setParent(parent)
                        .startSpan(),
                step);
    }

    /** Runs {@code step} with {@code span} current, and ends it; an exception marks the span failed. */
    static void inSpan(Span span, Runnable step) {
        try (Scope ignored = span.makeCurrent()) {
            step.run();
        } catch (RuntimeException | Error e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            throw e;
        } finally {
            span.end();
        }
    }
}
