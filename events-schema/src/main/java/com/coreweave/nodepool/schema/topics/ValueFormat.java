package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.util.function.Function;

/** How a topic's value bytes become a value: JSON of a record type, or the bytes themselves. */
public record ValueFormat<V>(String typeName, Function<byte[], V> decoder) {

    /**
     * JSON of {@code type}: not JSON is {@link Code#MALFORMED_JSON}, JSON of another shape {@link Code#INVALID_RECORD}.
     */
    public static <V> ValueFormat<V> json(Class<V> type) {
        return new ValueFormat<>(type.getSimpleName(), bytes -> {
            V value;
            try {
                value = Json.mapper().readValue(bytes, type);
            } catch (StreamReadException e) {
                throw new Rejection(Code.MALFORMED_JSON, "value is not JSON: " + firstLine(e.getOriginalMessage()));
            } catch (JsonProcessingException e) {
                throw new Rejection(
                        Code.INVALID_RECORD,
                        "value is not a " + type.getSimpleName() + ": " + firstLine(e.getOriginalMessage()));
            } catch (IOException e) {
                throw new Rejection(Code.MALFORMED_JSON, "value cannot be read: " + firstLine(e.getMessage()));
            }
            if (value == null) {
                throw new Rejection(Code.INVALID_RECORD, "value is JSON null, not a " + type.getSimpleName());
            }
            return value;
        });
    }

    /** Dead letters: the bytes as they arrived. */
    public static ValueFormat<byte[]> raw() {
        return new ValueFormat<>("the record as received", bytes -> bytes);
    }

    public V decode(byte[] bytes) {
        return decoder.apply(bytes);
    }

    static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
