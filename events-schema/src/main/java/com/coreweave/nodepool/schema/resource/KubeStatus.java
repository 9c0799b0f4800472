package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/** The Kubernetes {@code Status} object every API error answers with. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"apiVersion", "kind", "metadata", "status", "message", "reason", "details", "code"})
public record KubeStatus(
    String apiVersion,
    String kind,
    java.util.Map<String, String> metadata,
    String status,
    String message,
    String reason,
    Details details,
    int code) {

  /** Which object the error is about and, for invalid input, one cause per bad field. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  @JsonPropertyOrder({"name", "group", "kind", "causes"})
  public record Details(String name, String group, String kind, List<Cause> causes) {
  }

  /** One bad field: {@code field} is a path such as {@code spec.targetNodes}; {@code reason} one of Kubernetes'. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"reason", "message", "field"})
  public record Cause(String reason, String message, String field) {

    public static final String REQUIRED = "FieldValueRequired";
    public static final String INVALID = "FieldValueInvalid";
    public static final String NOT_SUPPORTED = "FieldValueNotSupported";
    public static final String FORBIDDEN = "FieldValueForbidden";
    public static final String TYPE_INVALID = "FieldValueTypeInvalid";
    public static final String TOO_LONG = "FieldValueTooLong";
    public static final String DUPLICATE = "FieldValueDuplicate";
  }

  public static KubeStatus failure(int code, String reason, String message, Details details) {
    return new KubeStatus("v1", "Status", java.util.Map.of(), "Failure", message, reason, details, code);
  }

  public static KubeStatus success(String message) {
    return new KubeStatus("v1", "Status", java.util.Map.of(), "Success", message, null, null, 200);
  }
}
