package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import java.util.List;

/** An API error that answers with a Kubernetes {@code Status} object and the matching HTTP code. */
public class ApiException extends RuntimeException {

    private final transient Status status;

    public ApiException(Status status) {
        super(status.getMessage());
        this.status = status;
    }

    public Status status() {
        return status;
    }

    public static ApiException badRequest(String message) {
        return new ApiException(Statuses.badRequest(message));
    }

    public static ApiException unauthorized(String message) {
        return new ApiException(Statuses.failure(401, "Unauthorized", message, null));
    }

    public static ApiException forbidden(String message) {
        return new ApiException(Statuses.failure(403, "Forbidden", message, null));
    }

    public static ApiException notFound(String kind, String name) {
        return new ApiException(Statuses.notFound(kind, name));
    }

    public static ApiException alreadyExists(String kind, String name) {
        return new ApiException(Statuses.alreadyExists(kind, name));
    }

    public static ApiException conflict(String kind, String name, String why) {
        return new ApiException(Statuses.conflict(kind, name, why));
    }

    /** 422 with one cause per bad field, as Kubernetes answers an invalid object. */
    public static ApiException invalid(String kind, String name, List<StatusCause> causes) {
        return new ApiException(Statuses.invalid(kind, name, causes));
    }

    public static ApiException timeout(String message) {
        return new ApiException(Statuses.failure(504, "Timeout", message, null));
    }

    /** 429: the caller asks more than it may; it may try again after {@code retryAfterSeconds} (also a header). */
    public static ApiException tooManyRequests(String message, int retryAfterSeconds) {
        StatusDetails details = new StatusDetails();
        details.setRetryAfterSeconds(retryAfterSeconds);
        return new ApiException(Statuses.failure(429, "TooManyRequests", message, details));
    }

    public static ApiException unavailable(String message) {
        return new ApiException(Statuses.failure(503, "ServiceUnavailable", message, null));
    }
}
