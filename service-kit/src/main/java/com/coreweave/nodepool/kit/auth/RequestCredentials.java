package com.coreweave.nodepool.kit.auth;

import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.HttpHeaders;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The caller a request's headers (and TLS session) name, read before any of its body, by the first of:
 *
 * <ul>
 *   <li>another instance's peer assertion ({@code X-Nodepool-Peer-Assertion}), for reads only, made for this service,
 *       method and path;
 *   <li>{@code Authorization: Bearer <token>}: a signed token (JWT) when it has two dots, else a static token;
 *   <li>with no {@code Authorization} header, on the TLS port, a client certificate TLS verified.
 * </ul>
 *
 * Anything else is an {@link AuthenticationFailure} saying what was wrong.
 */
@ApplicationScoped
public class RequestCredentials {

    /** Where the front door leaves the caller it admitted, in the request's routing context. */
    public static final String CALLER = RequestCredentials.class.getName() + ".caller";

    @Inject
    TokenRealm realm;

    @ConfigProperty(name = "quarkus.application.name")
    String service;

    /** Whether the request carries any credential at all (a header or a client certificate). */
    public static boolean carriesAny(HttpServerRequest http) {
        return http.getHeader(PeerAssertions.HEADER) != null
                || http.getHeader(HttpHeaders.AUTHORIZATION) != null
                || clientCertificate(http).isPresent();
    }

    /** The caller of {@code http}, whose normalized path is {@code path}. */
    public Caller callerOf(HttpServerRequest http, String path) {
        String assertion = http.getHeader(PeerAssertions.HEADER);
        String method = http.method().name();
        if (assertion != null) {
            // Another service reads on a caller's behalf (the dashboard's quotas and fleet); it never writes so.
            if (!isRead(method)) {
                throw new AuthenticationFailure("a peer assertion is accepted only for reads (GET, HEAD)");
            }
            return realm.callerOfPeerAssertion(assertion.trim(), new PeerTarget(service, method, http.path()));
        }
        String header = http.getHeader(HttpHeaders.AUTHORIZATION);
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
}
