package com.coreweave.nodepool.kit.tracing;

import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * The last step before a topology writes records: each that carries no trace context gets the current span's, so a
 * record written by a traced step carries that step's trace to its readers. A record stamped already keeps its own (an
 * output held for the commit was stamped by the step that made it); one written outside any span goes as it is.
 */
public final class TraceStamp<K, V> implements FixedKeyProcessor<K, V, V> {

    private FixedKeyProcessorContext<K, V> context;

    private TraceStamp() {}

    /** {@code stream} with each record stamped, by a processor named {@code name}. */
    public static <K, V> KStream<K, V> onto(KStream<K, V> stream, String name) {
        return stream.processValues(TraceStamp::new, Named.as(name));
    }

    @Override
    public void init(FixedKeyProcessorContext<K, V> context) {
        this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<K, V> record) {
        if (ServiceTracer.tracer() == null || TraceHeaders.present(record.headers())) {
            context.forward(record);
            return;
        }
        context.forward(record.withHeaders(TraceHeaders.withCurrent(record.headers())));
    }
}
