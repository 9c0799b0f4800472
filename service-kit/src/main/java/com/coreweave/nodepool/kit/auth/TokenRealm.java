package com.coreweave.nodepool.kit.auth;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Maps a credential to its caller: a static token (by its hash), a signed token (JWT), a client certificate, or another
 * instance's peer assertion. A normal-scoped bean, so that the request filter (built at static init) gets a proxy; the
 * runtime configuration is read at start-up, where a malformed entry or an unreadable key fails the start.
 */
@ApplicationScoped
public class TokenRealm {

    @Inject
    AuthSettings settings;

    private volatile StaticTokens staticTokens;
    private volatile Optional<SignedTokens> signedTokens;
    private volatile PeerAssertions peers;
    private volatile List<X509Certificate> clientCas;

    void onStart(@Observes StartupEvent start) {
        init();
    }

    private void init() {
        if (peers != null) {
            return;
        }
        synchronized (this) {
            if (peers != null) {
                return;
            }
            staticTokens = new StaticTokens(settings.staticTokens());
            signedTokens = settings.jwt().publicKeyLocation().map(location -> {
                try {
                    return new SignedTokens(
                            SignedTokens.readPublicKey(Path.of(location)),
                            settings.jwt().issuer().orElseThrow(() -> required("issuer")),
                            settings.jwt().audience().orElseThrow(() -> required("audience")),
                            settings.jwt().maxLifetime(),
                            Clock.systemUTC());
                } catch (IOException | GeneralSecurityException e) {
                    throw new IllegalStateException(
                            "nodepool.auth.jwt.public-key-location " + location + " cannot be read: " + e.getMessage(),
                            e);
                }
            });
            clientCas =
                    settings.clientCaLocation().map(ClientCertificates::readCas).orElse(List.of());
            peers = new PeerAssertions(settings.peerSecret(), Clock.systemUTC());
        }
    }

    /** A token of any issuer or audience would be accepted: a deployment must say whose tokens are meant for it. */
    private static IllegalStateException required(String what) {
        return new IllegalStateException("nodepool.auth.jwt.public-key-location is set, so nodepool.auth.jwt." + what
                + " must be too: without it a token minted for another service of the same issuer would be accepted");
    }

    /**
     * The caller a bearer token stands for: a token with two dots is a signed token (JWT), any other a static token. An
     * {@link AuthenticationFailure} says why a token is refused.
     */
    public Caller callerOfBearer(String token) {
        init();
        if (SignedTokens.looksSigned(token)) {
            return signedTokens
                    .orElseThrow(() -> new AuthenticationFailure("signed tokens are not accepted here"))
                    .callerOf(token);
        }
        return staticTokens.callerOf(token).orElseThrow(() -> new AuthenticationFailure("unknown bearer token"));
    }

    /**
     * The caller a client certificate names, if one of the configured client CAs signed it: the TLS layer's trust store
     * may hold more (the JDK's own CAs when none is set), so the signature is checked here again.
     */
    public Caller callerOfCertificate(X509Certificate certificate) {
        init();
        if (!ClientCertificates.signedByAny(certificate, clientCas)) {
            throw new AuthenticationFailure("client certificate not issued by this deployment's client CA");
        }
        return ClientCertificates.callerOf(certificate);
    }

    /** The caller another instance's assertion names, if it was made for {@code request}. */
    public Caller callerOfPeerAssertion(String assertion, PeerTarget request) {
        init();
        return peers.verify(assertion, request);
    }

    /** An assertion for another instance that {@code caller} is calling {@code target}, valid for seconds. */
    public String peerAssertion(Caller caller, PeerTarget target) {
        init();
        return peers.sign(caller, target);
    }
}
