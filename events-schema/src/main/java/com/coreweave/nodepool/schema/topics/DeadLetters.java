package com.coreweave.nodepool.schema.topics;

import com.coreweave.nodepool.schema.Limits;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The headers every dead-letter record carries: the original key and value stay as received, these say why and where
 * from. A dead-letter topic is {@code <inbound topic>-dlq} for the public inbound topics and {@code <service>-dlq} for
 * records a service could not read from an internal topic, nor write or process.
 */
public final class DeadLetters {

    private DeadLetters() {}

    /** A human-readable reason, e.g. "value is not JSON: Unexpected character ...", at most {@link #reason} allows. */
    public static final String REASON = "dlq.reason";
    /** A stable machine-readable code: MalformedJson, InvalidCloudEvent, KeyMismatch, InvalidSpec, Conflict, ... */
    public static final String ERROR = "dlq.error";

    public static final String SOURCE_TOPIC = "dlq.source.topic";
    public static final String SOURCE_PARTITION = "dlq.source.partition";
    public static final String SOURCE_OFFSET = "dlq.source.offset";
    /** The topic a record the service could not write was meant for (RecordTooLarge, SerializationFailed). */
    public static final String TARGET_TOPIC = "dlq.target.topic";
    /** The value's size in bytes when it was cut to let the dead letter fit; absent when the value is whole. */
    public static final String TRUNCATED = "dlq.truncated";
    /** The service that refused the record. */
    public static final String SERVICE = "dlq.service";

    public static final String FAILED_AT = "dlq.failed.at";

    private static final String ELLIPSIS = "…";

    public static String serviceTopic(String service) {
        return service + "-dlq";
    }

    /**
     * {@code reason} as the {@link #REASON} header carries it: at most {@link Limits#MAX_DLQ_REASON_BYTES} in UTF-8,
     * cut on a character boundary and ended with "…" when longer, so that no reason (a validation message with
     * thousands of causes, an exception's message) can make the dead letter itself too large to write.
     */
    public static String reason(String reason) {
        String text = reason == null ? "" : reason;
        if (text.length() * 3L <= Limits.MAX_DLQ_REASON_BYTES
                || text.getBytes(StandardCharsets.UTF_8).length <= Limits.MAX_DLQ_REASON_BYTES) {
            return text;
        }
        int room = Limits.MAX_DLQ_REASON_BYTES - ELLIPSIS.getBytes(StandardCharsets.UTF_8).length;
        // An encoder stops before the first character that does not fit whole, surrogate pairs included.
        CharsetEncoder encoder = StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        CharBuffer in = CharBuffer.wrap(text);
        encoder.encode(in, ByteBuffer.allocate(room), true);
        return text.substring(0, in.position()) + ELLIPSIS;
    }
}
