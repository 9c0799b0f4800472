package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.tracing.TraceStamp;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.Topic;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A record a processor wants written, and to which topic: processors return these and {@link #route} sends each to its
 * topic in the task's transaction. A null value is a tombstone; a {@code byte[]} value is written as is (dead letters
 * keep the bytes they arrived with).
 */
public record Outbound(String topic, Object value) {

    public static Outbound to(Topic<?, ?> topic, Object value) {
        return new Outbound(topic.name(), value);
    }

    public static Outbound tombstone(Topic<?, ?> topic) {
        return new Outbound(topic.name(), null);
    }

    private static final Serde<Outbound> SERDE = Serdes.serdeFrom(
            (topic, outbound) -> outbound == null || outbound.value() == null
                    ? null
                    : outbound.value() instanceof byte[] raw ? raw : Json.bytes(outbound.value()),
            (topic, bytes) -> {
                throw new UnsupportedOperationException("Outbound records are only written");
            });

    /** Writes every record of {@code stream} to the topic it names, with the trace of the step that made it. */
    public static void route(KStream<String, Outbound> stream, String name) {
        TraceStamp.onto(stream, "trace-" + name)
                .to(
                        (key, value, context) -> value.topic(),
                        Produced.with(Serdes.String(), SERDE).withName(name));
    }
}
