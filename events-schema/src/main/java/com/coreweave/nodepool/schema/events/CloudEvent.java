package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;

/** A CloudEvents 1.0 envelope in structured JSON mode, as {@code nodepool-requested} carries it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"specversion", "id", "source", "type", "subject", "time", "datacontenttype", "data"})
public record CloudEvent<T>(
        String specversion,
        String id,
        String source,
        String type,
        String subject,
        Instant time,
        String datacontenttype,
        T data) {

    public static final String SPEC_VERSION = "1.0";
    public static final String JSON = "application/json";

    public static <T> CloudEvent<T> of(String id, String source, String type, String subject, Instant time, T data) {
        return new CloudEvent<>(SPEC_VERSION, id, source, type, subject, time, JSON, data);
    }

    /** The same envelope around {@code data}: an inbound event's data once it is read as its type. */
    public <U> CloudEvent<U> withData(U data) {
        return new CloudEvent<>(specversion, id, source, type, subject, time, datacontenttype, data);
    }
}
