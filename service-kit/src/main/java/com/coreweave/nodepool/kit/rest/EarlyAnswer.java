package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.Json;
import io.fabric8.kubernetes.api.model.Status;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers a request with a Kubernetes {@code Status} before its body is read, and closes an HTTP/1 connection after it:
 * HTTP/1 cannot skip the rest of a body but by closing, so what the client still sends is never read.
 */
public final class EarlyAnswer {

    private EarlyAnswer() {}

    /** Ends {@code context} with {@code status} (and its {@code Retry-After}), then closes an HTTP/1 connection. */
    public static void refuse(RoutingContext context, Status status) {
        HttpServerResponse response = context.response();
        response.setStatusCode(status.getCode());
        response.putHeader(HttpHeaderNames.CONTENT_TYPE, "application/json");
        if (status.getDetails() != null && status.getDetails().getRetryAfterSeconds() != null) {
            response.putHeader("Retry-After", String.valueOf(status.getDetails().getRetryAfterSeconds()));
        }
        if (context.request().version() != HttpVersion.HTTP_2) {
            // HTTP/2 ends this stream alone (and forbids the header).
            response.putHeader(HttpHeaderNames.CONNECTION, "close");
            response.endHandler(ended -> context.request().connection().close());
        }
        response.end(Json.string(status));
    }
}
