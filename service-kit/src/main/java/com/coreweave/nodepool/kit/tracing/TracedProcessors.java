package com.coreweave.nodepool.kit.tracing;

import com.coreweave.nodepool.kit.streams.layer.ProcessorLayer;
import com.coreweave.nodepool.kit.streams.thread.StreamThreadState;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;

/**
 * Processes each record a sub-topology reads in a span of its own, {@code <application id> <topic>} (a CONSUMER span,
 * child of the trace context in the record's headers, {@link TraceHeaders}); the processors after the first run in that
 * span. The record goes on without the trace context it came with, so that what the step writes carries the step's own
 * ({@link TraceStamp}). Records a punctuator or a commit forwards are no read and get no span here. While tracing is
 * off ({@link ServiceTracer}) each record costs one read more.
 */
public final class TracedProcessors implements ProcessorWrapper {

    /** Longer than any {@code <org>/<pool>} (a pool's name has at most 253 characters). */
    static final int MAX_KEY_ATTRIBUTE = 512;

    /**
     * Runs {@code forward}, which forwards records a step made and held for the commit: Streams gives them the record
     * context of the last record read, but they are no read of it and get no span (they carry their step's trace).
     */
    public static void released(Runnable forward) {
        StreamThreadState.current().releasing(true);
        try {
            forward.run();
        } finally {
            StreamThreadState.current().releasing(false);
        }
    }

    @Override
    public <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
            String name, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
        return ProcessorLayer.around(supplier, Traced::new);
    }

    @Override
    public <KIn, VIn, VOut> WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> wrapFixedKeyProcessorSupplier(
            String name, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
        return ProcessorLayer.aroundFixedKey(supplier, TracedFixedKey::new);
    }

    /**
     * The span of a record read by {@code application} from {@code input}; null when tracing is off, when the record
     * read no topic or is {@link #released}, or when a span is current already (a processor after the sub-topology's
     * first).
     */
    static Span start(String application, Optional<RecordMetadata> input, Object key, Headers headers) {
        Tracer tracer = ServiceTracer.tracer();
        if (tracer == null
                || Span.current().getSpanContext().isValid()
                || StreamThreadState.current().releasing()) {
            return null;
        }
        RecordMetadata read = input.orElse(null);
        if (read == null || read.topic() == null) {
            return null;
        }
        SpanBuilder span = tracer.spanBuilder(application + " " + read.topic())
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(TraceHeaders.parent(headers))
                .setAttribute("messaging.system", "kafka")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.name", read.topic())
                .setAttribute("messaging.destination.partition.id", String.valueOf(read.partition()))
                .setAttribute("messaging.kafka.offset", read.offset());
        // Keys come from outside too: one longer than any pool's key is left out rather than exported whole.
        if (key instanceof String text && text.length() <= MAX_KEY_ATTRIBUTE) {
            span.setAttribute("messaging.kafka.message.key", text);
        }
        return span.startSpan();
    }

    private static final class Traced<KIn, VIn, KOut, VOut> implements Processor<KIn, VIn, KOut, VOut> {
        private final Processor<KIn, VIn, KOut, VOut> delegate;
        private ProcessorContext<KOut, VOut> context;

        Traced(Processor<KIn, VIn, KOut, VOut> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void init(ProcessorContext<KOut, VOut> context) {
            this.context = context;
            delegate.init(context);
        }

        @Override
        public void process(Record<KIn, VIn> record) {
            Span span = start(context.applicationId(), context.recordMetadata(), record.key(), record.headers());
            if (span == null) {
                delegate.process(record);
                return;
            }
            ServiceTracer.inSpan(
                    span, () -> delegate.process(record.withHeaders(TraceHeaders.without(record.headers()))));
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private static final class TracedFixedKey<KIn, VIn, VOut> implements FixedKeyProcessor<KIn, VIn, VOut> {
        private final FixedKeyProcessor<KIn, VIn, VOut> delegate;
        private FixedKeyProcessorContext<KIn, VOut> context;

        TracedFixedKey(FixedKeyProcessor<KIn, VIn, VOut> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void init(FixedKeyProcessorContext<KIn, VOut> context) {
            this.context = context;
            delegate.init(context);
        }

        @Override
        public void process(FixedKeyRecord<KIn, VIn> record) {
            Span span = start(context.applicationId(), context.recordMetadata(), record.key(), record.headers());
            if (span == null) {
                delegate.process(record);
                return;
            }
            ServiceTracer.inSpan(
                    span, () -> delegate.process(record.withHeaders(TraceHeaders.without(record.headers()))));
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
