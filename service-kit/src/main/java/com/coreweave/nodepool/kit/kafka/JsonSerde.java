package com.coreweave.nodepool.kit.kafka;

import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.databind.JavaType;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** A Kafka serde for any contract record (or a state-store value) through the one JSON mapping. */
public final class JsonSerde<T> implements Serde<T> {

    private final JavaType type;

    private JsonSerde(JavaType type) {
        this.type = type;
    }

    public static <T> JsonSerde<T> of(Class<T> type) {
        return new JsonSerde<>(Json.mapper().constructType(type));
    }

    public static <T> JsonSerde<T> of(com.fasterxml.jackson.core.type.TypeReference<T> type) {
        return new JsonSerde<>(Json.mapper().constructType(type));
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : Json.bytes(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return Json.mapper().readValue(bytes, type);
            } catch (Exception e) {
                throw new SerializationException(
                        "cannot read " + type.getRawClass().getSimpleName() + " from " + topic + ": " + e.getMessage(),
                        e);
            }
        };
    }
}
