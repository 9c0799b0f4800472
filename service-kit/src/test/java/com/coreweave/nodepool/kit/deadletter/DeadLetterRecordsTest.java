package com.coreweave.nodepool.kit.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.record.CompressionType;
import org.junit.jupiter.api.Test;

class DeadLetterRecordsTest {

    private static final Instant AT = Instant.parse("2026-11-27T10:00:00Z");
    private static final byte[] KEY = "demo/pool".getBytes(StandardCharsets.UTF_8);

    @Test
    void aRecordThatFitsIsKeptWhole() {
        byte[] value = "{\"pool\":\"demo/pool\"}".getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> letter =
                DeadLetterRecords.fitted("svc-dlq", KEY, value, headers(), 4096, CompressionType.LZ4);
        assertThat(letter.value()).isEqualTo(value);
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.TRUNCATED))
                .isNull();
    }

    @Test
    void theProvisionersRecordOfTwoMegabytesIsCutToFitUnderTheRecordLimitAndSaysItsSize() {
        byte[] value = ("{\"nodes\":[" + "{\"name\":\"us-east-04a-gd-8xa100-i128-0001\"},".repeat(45_000))
                .getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> letter = DeadLetterRecords.fitted(
                "provisioner-service-dlq", KEY, value, headers(), Integer.MAX_VALUE, CompressionType.LZ4);
        assertThat(letter.key()).isEqualTo(KEY);
        assertThat(DeadLetterRecords.header(letter.headers(), DeadLetters.TRUNCATED))
                .isEqualTo(Integer.toString(value.length));
        assertThat(DeadLetterRecords.size(letter.key(), letter.value(), letter.headers(), CompressionType.LZ4))
                .isLessThanOrEqualTo(Limits.MAX_RECORD_BYTES)
                .isGreaterThan(Limits.MAX_RECORD_BYTES - 100);
        assertThat(new String(letter.value(), StandardCharsets.UTF_8)).startsWith("{\"nodes\":[{\"name\":");
    }

    @Test
    void aReasonOfTenThousandCausesMakesAHeaderOfAtMostOneKibibyte() {
        Headers headers = DeadLetterRecords.headers(
                Code.INVALID_SPEC,
                "spec.nodeLabels: Invalid value; ".repeat(10_000),
                "nodepool-requested",
                2,
                17,
                null,
                "nodepool-api-service",
                AT);
        assertThat(headers.lastHeader(DeadLetters.REASON).value().length).isLessThanOrEqualTo(1024);
        assertThat(DeadLetterRecords.header(headers, DeadLetters.ERROR)).isEqualTo("InvalidSpec");
        assertThat(DeadLetterRecords.header(headers, DeadLetters.SOURCE_OFFSET)).isEqualTo("17");
        assertThat(DeadLetterRecords.header(headers, DeadLetters.TARGET_TOPIC)).isNull();
    }

    private static Headers headers() {
        return DeadLetterRecords.headers(
                Code.RECORD_TOO_LARGE,
                "too large",
                "capacity-checked",
                0,
                5,
                "nodepool-nodes-changed",
                "provisioner-service",
                AT);
    }
}
