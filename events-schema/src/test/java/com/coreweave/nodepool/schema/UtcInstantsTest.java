package com.coreweave.nodepool.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UtcInstantsTest {

    /** The mapping as it was, with Jackson's own instant reader only. */
    private static final ObjectMapper JACKSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);

    private static String read(ObjectMapper mapper, String json) {
        try {
            return String.valueOf(mapper.readValue(json, Instant.class));
        } catch (Exception e) {
            return "refused";
        }
    }

    @Test
    void everyInstantAsTheServicesWriteItIsReadBackExactly() {
        Random random = new Random(20261124);
        for (int i = 0; i < 20_000; i++) {
            long seconds = random.nextLong(
                    Instant.parse("1970-01-01T00:00:00Z").getEpochSecond(),
                    Instant.parse("2200-01-01T00:00:00Z").getEpochSecond());
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
            };
            Instant instant = Instant.ofEpochSecond(seconds, nanos);

            assertThat(UtcInstants.parse(instant.toString())).isEqualTo(instant);
            assertThat(Json.read("\"" + instant + "\"", Instant.class)).isEqualTo(instant);
        }
    }

    @Test
    void anyOtherFormIsReadOrRefusedAsJacksonDoes() {
        List<String> others = new ArrayList<>(List.of(
                "\"2026-11-24T12:00:00+02:00\"",
                "\"2026-11-24T10:00:00.5+00:00\"",
                "\"2026-11-24t10:00:00z\"",
                "\"2026-11-24 10:00:00Z\"",
                "\"2026-02-30T10:00:00Z\"",
                "\"2026-11-24T24:00:00Z\"",
                "\"2016-12-31T23:59:60Z\"",
                "\"2026-11-24T10:00:00.Z\"",
                "\"2026-11-24T10:00:00.1234567890Z\"",
                "\"2026-11-24T10:00Z\"",
                "\"+12026-11-24T10:00:00Z\"",
                "\"２026-11-24T10:00:00Z\"",
                "\"\"",
                "\"soon\"",
                "1764000000",
                "1764000000.5",
                "null",
                "[]",
                "{}"));

        for (String json : others) {
            assertThat(read(Json.mapper(), json)).as(json).isEqualTo(read(JACKSON, json));
        }
        assertThat(UtcInstants.parse("2026-02-30T10:00:00Z")).isNull();
    }
}
