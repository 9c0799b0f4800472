package com.coreweave.nodepool.kit.audit;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.resource.NodePool;
import io.fabric8.kubernetes.api.model.Status;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.HttpHeaders;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * Audits every REST write ({@link AuditEvents#audited}: not GET, HEAD or OPTIONS) once answered, refusals included: 401
 * before authentication, 403, 409, 413, 422, 429. Reads are not audited: this is Kubernetes' level Metadata for writes
 * only. A request filter ahead of authentication notes when the request came and from where; the response filter, which
 * also runs for a request a filter refused, hands the event to the {@link AuditTrail}, which writes it after the answer
 * (a flood of refusals summarized per caller and reason).
 */
public class AuditFilter {

    static final String RECEIVED = AuditFilter.class.getName() + ".received";
    static final String SOURCE_IPS = AuditFilter.class.getName() + ".sourceIPs";

    @Inject
    CurrentCaller current;

    @Inject
    Clock clock;

    @Inject
    AuditTrail trail;

    @ConfigProperty(name = "quarkus.application.name", defaultValue = "")
    String service;

    @ServerRequestFilter(preMatching = true, priority = Priorities.AUTHENTICATION - 100)
    public void received(ContainerRequestContext request, HttpServerRequest http) {
        if (AuditEvents.audited(request.getMethod())) {
            request.setProperty(RECEIVED, clock.instant());
            request.setProperty(SOURCE_IPS, sourceIPs(request, http.remoteAddress()));
        }
    }

    @ServerResponseFilter
    public void answered(ContainerRequestContext request, ContainerResponseContext response) {
        if (!AuditEvents.audited(request.getMethod())) {
            return;
        }
        Instant completed = clock.instant();
        Object received = request.getProperty(RECEIVED);
        Object entity = response.getEntity();
        var uri = request.getUriInfo().getRequestUri();
        @SuppressWarnings("unchecked")
        List<String> sourceIPs = (List<String>) request.getProperty(SOURCE_IPS);
        Caller caller = caller();
        AuditEvent event = AuditEvents.of(new AuditEvents.HttpWrite(
                UUID.randomUUID().toString(),
                caller,
                request.getMethod(),
                uri.getRawQuery() == null ? uri.getRawPath() : uri.getRawPath() + "?" + uri.getRawQuery(),
                response.getStatus(),
                entity instanceof Status status ? status : null,
                entity instanceof NodePool pool && pool.metadata() != null
                        ? pool.metadata().generation()
                        : null,
                sourceIPs,
                request.getHeaderString(HttpHeaders.USER_AGENT),
                received instanceof Instant at ? at : completed,
                completed,
                service));
        trail.record(
                entity instanceof NodePool pool && pool.metadata() != null
                        ? named(event, pool.metadata().name())
                        : event,
                who(caller, sourceIPs));
    }

    /** A create names no object in its path: as Kubernetes does, its event names the object created. */
    static AuditEvent named(AuditEvent event, String name) {
        AuditEvent.ObjectRef ref = event.objectRef();
        if (ref == null || ref.name() != null || name == null) {
            return event;
        }
        return new AuditEvent(
                event.kind(),
                event.apiVersion(),
                event.level(),
                event.auditID(),
                event.stage(),
                event.requestURI(),
                event.verb(),
                event.user(),
                event.sourceIPs(),
                event.userAgent(),
                new AuditEvent.ObjectRef(
                        ref.resource(), ref.namespace(), name, ref.apiGroup(), ref.apiVersion(), ref.subresource()),
                event.responseStatus(),
                event.requestReceivedTimestamp(),
                event.stageTimestamp(),
                event.annotations());
    }

    /** Whom a refusal is counted against: the caller, or an unknown one's connection (its peer, not a header). */
    public static String who(Caller caller, List<String> sourceIPs) {
        if (caller != null) {
            return caller.user() + "@" + caller.org();
        }
        return AuditEvents.ANONYMOUS.username() + "@" + (sourceIPs == null ? "" : sourceIPs.getLast());
    }

    /** The authenticated caller, or null for a request refused before (or without) authentication. */
    private Caller caller() {
        try {
            return current.get();
        } catch (ApiException | IllegalStateException e) {
            return null;
        }
    }

    /**
     * As Kubernetes lists them: the {@code X-Forwarded-For} addresses, then {@code X-Real-Ip} if not among them, then
     * the connection's peer if it is not the last already. All but the peer can be set by the client.
     */
    static List<String> sourceIPs(ContainerRequestContext request, SocketAddress peer) {
        return sourceIPs(request.getHeaderString("X-Forwarded-For"), request.getHeaderString("X-Real-Ip"), peer);
    }

    /**
     * The source IPs of a request with these {@code X-Forwarded-For} and {@code X-Real-Ip} headers from {@code peer}.
     */
    public static List<String> sourceIPs(String forwarded, String real, SocketAddress peer) {
        List<String> ips = new ArrayList<>();
        if (forwarded != null) {
            for (String ip : forwarded.split(",")) {
                if (!ip.isBlank()) {
                    ips.add(ip.trim());
                }
            }
        }
        if (real != null && !real.isBlank() && !ips.contains(real.trim())) {
            ips.add(real.trim());
        }
        String remote = peer == null ? null : peer.hostAddress();
        if (remote != null && (ips.isEmpty() || !ips.get(ips.size() - 1).equals(remote))) {
            ips.add(remote);
        }
        return ips.isEmpty() ? null : ips;
    }
}
