package com.coreweave.nodepool.kit.rest;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.event.Observes;

/**
 * A request body of more than {@link Limits#MAX_REQUEST_BODY_BYTES} is refused with 413 and a Kubernetes {@code Status}
 * ({@code RequestEntityTooLarge}), as the Kubernetes API server refuses one, and is never read whole: one with a larger
 * Content-Length is refused before any of it is read, one without (chunked) once more than the limit has arrived. The
 * connection is closed then, so the rest is not read either. Quarkus' own limit
 * ({@code quarkus.http.limits.max-body-size}) answers 413 with no body at all; this route comes before it.
 */
public class RequestBodyLimit {

    /** Reads a body that did not say its length, up to the limit; past it, fails the request with 413. */
    private final BodyHandler chunked = BodyHandler.create(false).setBodyLimit(Limits.MAX_REQUEST_BODY_BYTES);

    void install(@Observes Router router) {
        router.route()
                .order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 1)
                .handler(this::limit)
                .failureHandler(this::tooLarge);
    }

    private void limit(RoutingContext context) {
        HttpServerRequest request = context.request();
        String length = request.getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (length != null) {
            if (declared(length) > Limits.MAX_REQUEST_BODY_BYTES) {
                refuse(context);
            } else {
                context.next();
            }
        } else if (request.isEnded()
                || request.method() == HttpMethod.GET
                || request.method() == HttpMethod.HEAD
                || request.version() == HttpVersion.HTTP_2) {
            // No body, or an HTTP/2 stream: REST pauses the request it is handed, which HTTP/2 refuses once a body was
            // read here, so an HTTP/2 body of no declared length is held to quarkus.http.limits.max-body-size instead.
            context.next();
        } else {
            chunked.handle(context);
        }
    }

    private void tooLarge(RoutingContext context) {
        if (context.statusCode() == 413 && !context.response().ended()) {
            refuse(context);
        } else {
            context.next();
        }
    }

    private static void refuse(RoutingContext context) {
        EarlyAnswer.refuse(
                context,
                Statuses.failure(
                        413,
                        "RequestEntityTooLarge",
                        "Request entity too large: limit is " + Limits.MAX_REQUEST_BODY_BYTES + " bytes",
                        null));
    }

    /** The length a request declares; one that is not a number is left to the HTTP server to refuse. */
    private static long declared(String length) {
        try {
            return Long.parseLong(length.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
