package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.reads.InternalReads;
import com.coreweave.nodepool.kit.rest.StatusMappers;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.vertx.core.http.HttpServerRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Authenticates every API call (health and metrics are open), by the first of:
 *
 * <ul>
 *   <li>on {@code /internal/...} only, another instance's peer assertion ({@code X-Nodepool-Peer-Assertion});
 *   <li>{@code Authorization: Bearer <token>}: a signed token (JWT) when it has two dots, else a static token;
 *   <li>with no {@code Authorization} header, on the TLS port, a client certificate TLS verified.
 * </ul>
 *
 * Anything else is a 401 {@code Status} saying what was wrong.
 */
public class BearerTokenFilter {

    @Inject
    TokenRealm realm;

    @Inject
    CurrentCaller current;

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Optional<Response> authenticate(ContainerRequestContext request, HttpServerRequest http) {
        try {
            current.set(authenticated(request, http));
            return Optional.empty();
        } catch (AuthenticationFailure e) {
            return Optional.of(unauthorized(e.getMessage()));
        }
    }

    private Caller authenticated(ContainerRequestContext request, HttpServerRequest http) {
        String assertion = request.getHeaderString(PeerAssertions.HEADER);
        if (assertion != null) {
            // Another service reads on a caller's behalf (the dashboard's quotas and fleet); it never writes so.
            if (!isInternal(request.getUriInfo().getPath()) && !isRead(request.getMethod())) {
                throw new AuthenticationFailure("a peer assertion is accepted only on " + InternalReads.ROOT
                        + "/ paths and for reads (GET, HEAD)");
            }
            return realm.callerOfPeerAssertion(assertion.trim());
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header != null) {
            if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
                throw new AuthenticationFailure("the Authorization header must be Bearer <token>");
            }
            return realm.callerOfBearer(header.substring(7).trim());
        }
        Optional<X509Certificate> certificate = clientCertificate(http);
        if (certificate.isPresent()) {
            return realm.callerOfCertificate(certificate.get());
        }
        throw new AuthenticationFailure(
                "an Authorization: Bearer <token> header (or, over TLS, a client certificate) is required");
    }

    static boolean isRead(String method) {
        return "GET".equals(method) || "HEAD".equals(method);
    }

    static boolean isInternal(String path) {
        return path != null && path.startsWith(InternalReads.ROOT + "/");
    }

    /** The client's own certificate, when the TLS handshake asked for one and verified it. */
    static Optional<X509Certificate> clientCertificate(HttpServerRequest http) {
        if (http == null || !http.isSSL()) {
            return Optional.empty();
        }
        SSLSession session = http.sslSession();
        if (session == null) {
            return Optional.empty();
        }
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? Optional.of(leaf) : Optional.empty();
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
    }

    private static Response unauthorized(String message) {
        return StatusMappers.respond(Statuses.failure(401, "Unauthorized", message, null));
    }
}
