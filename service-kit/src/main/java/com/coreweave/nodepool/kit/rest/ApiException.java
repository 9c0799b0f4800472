package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.resource.KubeStatus;
import java.util.List;

/** An API error that answers with a Kubernetes {@code Status} object and the matching HTTP code. */
public class ApiException extends RuntimeException {

  private static final String GROUP = "compute.coreweave.com";

  private final KubeStatus status;

  public ApiException(KubeStatus status) {
    super(status.message());
    this.status = status;
  }

  public KubeStatus status() {
    return status;
  }

  public static ApiException badRequest(String message) {
    return new ApiException(KubeStatus.failure(400, "BadRequest", message, null));
  }

  public static ApiException unauthorized(String message) {
    return new ApiException(KubeStatus.failure(401, "Unauthorized", message, null));
  }

  public static ApiException forbidden(String message) {
    return new ApiException(KubeStatus.failure(403, "Forbidden", message, null));
  }

  public static ApiException notFound(String kind, String name) {
    return new ApiException(KubeStatus.failure(404, "NotFound",
        kind.toLowerCase() + "s." + GROUP + " \"" + name + "\" not found",
        new KubeStatus.Details(name, GROUP, kind.toLowerCase() + "s", null)));
  }

  public static ApiException alreadyExists(String kind, String name) {
    return new ApiException(KubeStatus.failure(409, "AlreadyExists",
        kind.toLowerCase() + "s." + GROUP + " \"" + name + "\" already exists",
        new KubeStatus.Details(name, GROUP, kind.toLowerCase() + "s", null)));
  }

  public static ApiException conflict(String kind, String name, String why) {
    return new ApiException(KubeStatus.failure(409, "Conflict",
        "Operation cannot be fulfilled on " + kind.toLowerCase() + "s." + GROUP + " \"" + name + "\": " + why,
        new KubeStatus.Details(name, GROUP, kind.toLowerCase() + "s", null)));
  }

  /** 422 with one cause per bad field, as Kubernetes answers an invalid object. */
  public static ApiException invalid(String kind, String name, List<KubeStatus.Cause> causes) {
    String summary = String.join(", ", causes.stream()
        .map(c -> c.field() == null ? c.message() : c.field() + ": " + c.message()).toList());
    return new ApiException(KubeStatus.failure(422, "Invalid",
        kind + "." + GROUP + " \"" + (name == null ? "" : name) + "\" is invalid: " + summary,
        new KubeStatus.Details(name, GROUP, kind, causes)));
  }

  public static ApiException timeout(String message) {
    return new ApiException(KubeStatus.failure(504, "Timeout", message, null));
  }

  public static ApiException unavailable(String message) {
    return new ApiException(KubeStatus.failure(503, "ServiceUnavailable", message, null));
  }
}
