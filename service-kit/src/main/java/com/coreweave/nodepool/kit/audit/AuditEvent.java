package com.coreweave.nodepool.kit.audit;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;

/**
 * One audited write, in the shape of a Kubernetes {@code audit.k8s.io/v1} {@code Event} at level {@code Metadata}
 * (field names and meanings as Kubernetes', so its tools read our lines): who asked, what, and the answer; never the
 * request or response body. Our extras are {@link #annotations} under {@code nodepool.coreweave.com/}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
    "kind",
    "apiVersion",
    "level",
    "auditID",
    "stage",
    "requestURI",
    "verb",
    "user",
    "sourceIPs",
    "userAgent",
    "objectRef",
    "responseStatus",
    "requestReceivedTimestamp",
    "stageTimestamp",
    "annotations"
})
public record AuditEvent(
        @JsonProperty("kind") String kind,
        @JsonProperty("apiVersion") String apiVersion,
        @JsonProperty("level") String level,
        @JsonProperty("auditID") String auditID,
        @JsonProperty("stage") String stage,
        @JsonProperty("requestURI") String requestURI,
        @JsonProperty("verb") String verb,
        @JsonProperty("user") User user,
        @JsonProperty("sourceIPs") List<String> sourceIPs,
        @JsonProperty("userAgent") String userAgent,
        @JsonProperty("objectRef") ObjectRef objectRef,
        @JsonProperty("responseStatus") ResponseStatus responseStatus,
        @JsonProperty("requestReceivedTimestamp") String requestReceivedTimestamp,
        @JsonProperty("stageTimestamp") String stageTimestamp,
        @JsonProperty("annotations") Map<String, String> annotations) {

    public static final String KIND = "Event";
    public static final String API_VERSION = "audit.k8s.io/v1";
    public static final String LEVEL_METADATA = "Metadata";
    public static final String STAGE_RESPONSE_COMPLETE = "ResponseComplete";

    /** A write answered ({@code ResponseComplete}), at the only level recorded here ({@code Metadata}). */
    public static AuditEvent completed(
            String auditID,
            String requestURI,
            String verb,
            User user,
            List<String> sourceIPs,
            String userAgent,
            ObjectRef objectRef,
            ResponseStatus responseStatus,
            String requestReceivedTimestamp,
            String stageTimestamp,
            Map<String, String> annotations) {
        return new AuditEvent(
                KIND,
                API_VERSION,
                LEVEL_METADATA,
                auditID,
                STAGE_RESPONSE_COMPLETE,
                requestURI,
                verb,
                user,
                sourceIPs,
                userAgent,
                objectRef,
                responseStatus,
                requestReceivedTimestamp,
                stageTimestamp,
                annotations);
    }

    /** Kubernetes' {@code authentication.k8s.io/v1 UserInfo}: the caller and the groups it acts in. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record User(
            @JsonProperty("username") String username,
            @JsonProperty("groups") List<String> groups) {}

    /** Kubernetes' {@code audit.k8s.io/v1 ObjectReference}: the object written; no apiGroup for the core group. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"resource", "namespace", "name", "apiGroup", "apiVersion", "subresource"})
    public record ObjectRef(
            @JsonProperty("resource") String resource,
            @JsonProperty("namespace") String namespace,
            @JsonProperty("name") String name,
            @JsonProperty("apiGroup") String apiGroup,
            @JsonProperty("apiVersion") String apiVersion,
            @JsonProperty("subresource") String subresource) {}

    /**
     * The answer, as Kubernetes' {@code metav1.Status} at level Metadata: the code always; {@code status} "Failure",
     * reason and message only for a refusal.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"code", "status", "reason", "message"})
    public record ResponseStatus(
            @JsonProperty("code") int code,
            @JsonProperty("status") String status,
            @JsonProperty("reason") String reason,
            @JsonProperty("message") String message) {}
}
