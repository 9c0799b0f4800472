package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabric8.kubernetes.api.model.Status;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Every error leaves the API as a Kubernetes {@code Status}, never as an HTML page or a bare stack trace. */
public class StatusMappers {

    private static final Logger LOG = Logger.getLogger(StatusMappers.class);

    /** The Status as the answer, with {@code Retry-After} when it says when to retry (as Kubernetes sends it). */
    public static Response respond(Status status) {
        Response.ResponseBuilder answer = Response.status(status.getCode())
                .type(MediaType.APPLICATION_JSON)
                .entity(status);
        if (status.getDetails() != null && status.getDetails().getRetryAfterSeconds() != null) {
            answer.header("Retry-After", status.getDetails().getRetryAfterSeconds());
        }
        return answer.build();
    }

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return respond(e.status());
    }

    @ServerExceptionMapper(priority = 4000)
    public Response unreadableJson(JsonProcessingException e) {
        return respond(RequestBody.malformed("JSON", e).status());
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int code = e.getResponse().getStatus();
        String reason = switch (code) {
            case 400 -> "BadRequest";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "NotFound";
            case 405 -> "MethodNotAllowed";
            case 406 -> "NotAcceptable";
            case 409 -> "Conflict";
            case 413 -> "RequestEntityTooLarge";
            case 415 -> "UnsupportedMediaType";
            default -> code >= 500 ? "InternalError" : "BadRequest";
        };
        return respond(Statuses.failure(code, reason, e.getMessage(), null));
    }

    /** A store read during a rebalance or restore: the data is there again in a moment. */
    @ServerExceptionMapper
    public Response storeNotReady(InvalidStateStoreException e) {
        return Response.fromResponse(respond(Statuses.failure(
                        503,
                        "ServiceUnavailable",
                        "state is being restored or rebalanced; retry shortly (" + e.getMessage() + ")",
                        null)))
                .header("Retry-After", "1")
                .build();
    }

    @ServerExceptionMapper
    public Response unexpected(RuntimeException e) {
        LOG.error("unexpected error answering a request", e);
        return respond(Statuses.failure(500, "InternalError", "internal error: " + e.getMessage(), null));
    }
}
