package com.coreweave.nodepool.kit.door;

import com.coreweave.nodepool.kit.audit.AuditEvents;
import com.coreweave.nodepool.kit.audit.AuditFilter;
import com.coreweave.nodepool.kit.audit.AuditTrail;
import com.coreweave.nodepool.kit.auth.RequestCredentials;
import com.coreweave.nodepool.kit.rest.EarlyAnswer;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one door every request of every service comes through, ahead of the body limit and of REST: from the headers
 * alone it decides ({@link Doorkeeper}), and a refused request is answered at once, its connection closed, so an
 * unauthenticated client costs its headers and nothing more. The admitted caller is left in the routing context for
 * REST ({@link RequestCredentials#CALLER}); a refused write is audited as REST writes are.
 */
@Singleton
public class FrontDoor {

    @Inject
    RequestCredentials credentials;

    @Inject
    DoorSettings settings;

    @Inject
    AuditTrail trail;

    @Inject
    Clock clock;

    @ConfigProperty(name = "quarkus.application.name", defaultValue = "")
    String service;

    private Doorkeeper keeper;

    void install(@Observes Router router) {
        keeper = new Doorkeeper(
                new FailedAuthentications(
                        settings.failuresPerSecond(), settings.failureBurst(), settings.failureAddresses()),
                new RequestsPerAddress(settings.requestsPerAddress()),
                new InFlightBytes(settings.inFlightBytesPerOrg(), settings.inFlightBytes()));
        router.route().order(RouteConstants.ROUTE_ORDER_UPLOAD_LIMIT - 2).handler(this::admit);
    }

    private void admit(RoutingContext context) {
        Instant received = clock.instant();
        HttpServerRequest request = context.request();
        String path = context.normalizedPath();
        String address =
                request.remoteAddress() == null ? "" : request.remoteAddress().hostAddress();
        Doorkeeper.Verdict verdict = keeper.admit(
                Admission.of(path),
                address,
                () -> credentials.callerOf(request, path),
                bodyBytes(request),
                System.nanoTime());
        if (verdict.admitted()) {
            if (verdict.caller() != null) {
                context.put(RequestCredentials.CALLER, verdict.caller());
                context.addEndHandler(ended -> keeper.done(address, verdict));
            }
            context.next();
            return;
        }
        StatusDetails details = null;
        if (verdict.retryAfter() > 0) {
            details = new StatusDetails();
            details.setRetryAfterSeconds(verdict.retryAfter());
        }
        Status status = Statuses.failure(verdict.code(), verdict.reason(), verdict.message(), details);
        EarlyAnswer.refuse(context, status);
        if (AuditEvents.audited(request.method().name())) {
            audit(context, verdict, status, received);
        }
    }

    /** What a body may take while it is read: the length it declares, else (chunked) the largest allowed. */
    private static long bodyBytes(HttpServerRequest request) {
        if (request.method() == HttpMethod.GET || request.method() == HttpMethod.HEAD || request.isEnded()) {
            return 0;
        }
        String length = request.getHeader(HttpHeaderNames.CONTENT_LENGTH);
        if (length == null) {
            return Limits.MAX_REQUEST_BODY_BYTES;
        }
        try {
            return Math.min(Math.max(0, Long.parseLong(length.trim())), Limits.MAX_REQUEST_BODY_BYTES);
        } catch (NumberFormatException e) {
            return Limits.MAX_REQUEST_BODY_BYTES;
        }
    }

    private void audit(RoutingContext context, Doorkeeper.Verdict verdict, Status status, Instant received) {
        HttpServerRequest request = context.request();
        List<String> sourceIPs = AuditFilter.sourceIPs(
                request.getHeader("X-Forwarded-For"), request.getHeader("X-Real-Ip"), request.remoteAddress());
        trail.record(
                AuditEvents.of(new AuditEvents.HttpWrite(
                        UUID.randomUUID().toString(),
                        verdict.caller(),
                        request.method().name(),
                        request.uri(),
                        verdict.code(),
                        status,
                        null,
                        sourceIPs,
                        request.getHeader(HttpHeaderNames.USER_AGENT),
                        received,
                        clock.instant(),
                        service)),
                AuditFilter.who(verdict.caller(), sourceIPs));
    }
}
