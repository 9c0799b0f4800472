package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;

/**
 * A Kubernetes condition. {@code lastTransitionTime} changes only when {@code status} changes; reason and message may
 * change without a transition.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "status", "reason", "message", "lastTransitionTime", "observedGeneration"})
public record Condition(
        String type,
        String status,
        String reason,
        String message,
        Instant lastTransitionTime,
        Long observedGeneration) {

    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String UNKNOWN = "Unknown";

    public static Condition of(String type, boolean status, String reason, String message) {
        return new Condition(type, status ? TRUE : FALSE, reason, message, null, null);
    }

    /** This condition as it follows {@code previous}: the transition time is kept unless the status changed. */
    public Condition after(Condition previous, Instant now) {
        Instant since = previous != null && previous.status().equals(status) && previous.lastTransitionTime() != null
                ? previous.lastTransitionTime()
                : now;
        return new Condition(type, status, reason, message, since, observedGeneration);
    }

    public Condition withObservedGeneration(Long generation) {
        return new Condition(type, status, reason, message, lastTransitionTime, generation);
    }

    @JsonIgnore
    public boolean isTrue() {
        return TRUE.equals(status);
    }
}
