package com.coreweave.nodepool.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under src/test/resources/golden pin the JSON of each contract. Run with -Dgolden.update=true to
 * (re)write them after a deliberate change, then review the diff.
 */
final class Golden {

    private static final Path DIR = Path.of("src/test/resources/golden");

    private Golden() {}

    static String pretty(Object value) throws IOException {
        return Json.mapper().writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value) + "\n";
    }

    /** Asserts that {@code value} serializes exactly to the golden file and reads back equal to itself. */
    static <T> void assertMatches(String file, T value) throws IOException {
        assertMatches(file, value, Json.mapper().constructType(value.getClass()));
    }

    static <T> void assertMatches(String file, T value, TypeReference<T> type) throws IOException {
        assertMatches(file, value, Json.mapper().constructType(type));
    }

    private static void assertMatches(String file, Object value, JavaType type) throws IOException {
        String json = pretty(value);
        Path path = DIR.resolve(file);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(DIR);
            Files.writeString(path, json);
        }
        assertThat(Files.exists(path))
                .as("golden file %s exists (write it with -Dgolden.update=true)", path)
                .isTrue();
        assertThat(json).as("JSON of %s", file).isEqualTo(Files.readString(path));
        Object readBack = Json.mapper().readValue(json, type);
        assertThat(readBack).as("round trip of %s", file).isEqualTo(value);
    }

    static String read(String file) throws IOException {
        return Files.readString(DIR.resolve(file));
    }
}
