package com.coreweave.nodepool.kit.deadletter;

import com.coreweave.nodepool.kit.streams.internals.StreamsInternals;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * How every dead letter of a service is made: its {@code dlq.*} headers (the reason bounded by
 * {@link DeadLetters#reason}), and a record that fits what the producer may send.
 */
public final class DeadLetterRecords {

    /** Room for the length fields, which grow by a few bytes with the value's length. */
    private static final int LENGTH_FIELDS = 16;

    private DeadLetterRecords() {}

    /**
     * The headers of a dead letter. {@code sourceTopic} (with its partition and offset) names the input record, null
     * for none (a punctuation); {@code targetTopic} names the topic a record the service could not write was meant for,
     * null when it was an input that failed.
     */
    public static Headers headers(
            Code code,
            String reason,
            String sourceTopic,
            int partition,
            long offset,
            String targetTopic,
            String service,
            Instant failedAt) {
        Headers headers = StreamsInternals.headers();
        headers.add(DeadLetters.REASON, utf8(DeadLetters.reason(reason)));
        headers.add(DeadLetters.ERROR, utf8(code.header()));
        if (sourceTopic != null) {
            headers.add(DeadLetters.SOURCE_TOPIC, utf8(sourceTopic));
            headers.add(DeadLetters.SOURCE_PARTITION, utf8(Integer.toString(partition)));
            headers.add(DeadLetters.SOURCE_OFFSET, utf8(Long.toString(offset)));
        }
        if (targetTopic != null) {
            headers.add(DeadLetters.TARGET_TOPIC, utf8(targetTopic));
        }
        headers.add(DeadLetters.SERVICE, utf8(service));
        headers.add(DeadLetters.FAILED_AT, utf8(failedAt.toString()));
        return headers;
    }

    /**
     * A dead letter to {@code service}'s dead-letter topic of a record that failed while Kafka Streams processed the
     * input {@code source} names (none for a punctuation).
     */
    static ProducerRecord<byte[], byte[]> letter(
            String service,
            ErrorHandlerContext source,
            String targetTopic,
            byte[] key,
            byte[] value,
            Code code,
            String reason,
            Instant failedAt) {
        Headers headers = headers(
                code, reason, source.topic(), source.partition(), source.offset(), targetTopic, service, failedAt);
        return new ProducerRecord<>(DeadLetters.serviceTopic(service), null, key, value, headers);
    }

    /**
     * A dead letter to {@code topic} of at most {@code limit} bytes as the producer counts them (and never more than
     * {@link Limits#MAX_RECORD_BYTES}): the key as is, the value cut to what fits after the key and headers, and then a
     * {@code dlq.truncated} header with its size. A value that could not be written is kept as far as it fits rather
     * than dropped: it exists nowhere else, and its beginning names what it was about.
     */
    public static ProducerRecord<byte[], byte[]> fitted(
            String topic, byte[] key, byte[] value, Headers headers, int limit, CompressionType compression) {
        int room = Math.min(limit, Limits.MAX_RECORD_BYTES);
        if (size(key, value, headers, compression) <= room) {
            return new ProducerRecord<>(topic, null, key, value, headers);
        }
        Headers cut = StreamsInternals.headers(headers.toArray());
        cut.add(DeadLetters.TRUNCATED, utf8(Integer.toString(value == null ? 0 : value.length)));
        int valueRoom = room - size(key, null, cut, compression) - LENGTH_FIELDS;
        if (valueRoom < 0) {
            // Only a key of about the record limit itself leaves no room: the headers still say where it came from.
            return new ProducerRecord<byte[], byte[]>(topic, null, null, null, cut);
        }
        byte[] kept = value == null ? null : Arrays.copyOf(value, Math.min(value.length, valueRoom));
        return new ProducerRecord<>(topic, null, key, kept, cut);
    }

    /** The size the producer checks against its {@code max.request.size} (KafkaProducer's own estimate). */
    public static int size(byte[] key, byte[] value, Headers headers, CompressionType compression) {
        return AbstractRecords.estimateSizeInBytesUpperBound(
                RecordBatch.CURRENT_MAGIC_VALUE,
                compression,
                key,
                value,
                headers == null ? new Header[0] : headers.toArray());
    }

    /** The first value of {@code name}, or null. */
    public static String header(Headers headers, String name) {
        Iterator<Header> found = headers.headers(name).iterator();
        byte[] value = found.hasNext() ? found.next().value() : null;
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String value) {
        return (value == null ? "" : value).getBytes(StandardCharsets.UTF_8);
    }
}
