package com.coreweave.nodepool.schema;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * The one JSON mapping of every contract: RFC 3339 timestamps, no nulls, map keys sorted (so output is stable and
 * golden files can pin it), unknown properties tolerated on internal facts (readers stay compatible when writers add
 * fields). Strict parsing of user manifests is the API's job, not the mapper's.
 */
public final class Json {

    private static final ObjectMapper MAPPER = configure(JsonMapper.builder().build());
    // Jackson reads a YAML alias as its anchor's name and never expands it, so an alias bomb stays as small as its
    // text; a document is read up to the largest body the API accepts, in code points. Both mappers keep Jackson's
    // StreamReadConstraints: nesting of at most 1,000 levels, names of at most 50,000 characters.
    private static final ObjectMapper YAML = configure(new YAMLMapper(YAMLFactory.builder()
            .loaderOptions(yamlLimits())
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .build()));

    private Json() {}

    /** The shared, thread-safe JSON mapper. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** The same mapping for YAML manifests. */
    public static ObjectMapper yaml() {
        return YAML;
    }

    private static LoaderOptions yamlLimits() {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(Limits.MAX_REQUEST_BODY_BYTES);
        return options;
    }

    public static <M extends ObjectMapper> M configure(M mapper) {
        mapper.registerModule(new JavaTimeModule());
        mapper.registerModule(UtcInstants.module());
        mapper.registerModule(new Jdk8Module());
        mapper.registerModule(new BlackbirdModule());
        mapper.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        mapper.disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);
        mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        mapper.enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
        mapper.setSerializationInclusion(JsonInclude.Include.NON_NULL);
        return mapper;
    }

    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    public static String string(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", e);
        }
    }

    public static <T> T read(byte[] json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot read " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot read " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
