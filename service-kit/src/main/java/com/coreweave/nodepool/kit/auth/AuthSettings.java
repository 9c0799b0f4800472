package com.coreweave.nodepool.kit.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Who may call (docs/security.md, "Identities"). The stack's demo and test profiles ship demo-only values; a real
 * deployment sets its own.
 */
@ConfigMapping(prefix = "nodepool.auth")
public interface AuthSettings {

    /**
     * Static bearer tokens, by the SHA-256 of the token (64 hex digits) to {@code <user>,<org>[,<role>...]}: the
     * configuration never holds a token itself.
     */
    @WithName("static-tokens")
    Map<String, String> staticTokens();

    /** Signed bearer tokens (JWT). */
    Jwt jwt();

    /**
     * The CA certificates (a PEM file) a client certificate must be signed by to name its caller; without it no client
     * certificate is accepted, whatever the TLS layer let through.
     */
    @WithName("client-ca-location")
    Optional<String> clientCaLocation();

    /**
     * The secret every instance signs and checks the assertions it sends its peers with (HMAC-SHA256, at least 32
     * characters, the same on every instance of every service). Required: only the dev, demo and test profiles set one.
     */
    @WithName("peer-secret")
    String peerSecret();

    /** Signed bearer tokens: accepted only when a public key is configured. */
    interface Jwt {

        /** A PEM file with the issuer's public key (RSA for RS256 or EC P-256 for ES256), or its certificate. */
        @WithName("public-key-location")
        Optional<String> publicKeyLocation();

        /** The {@code iss} a token must have: required once a public key is set. */
        Optional<String> issuer();

        /** An {@code aud} a token must have (this deployment's API): required once a public key is set. */
        Optional<String> audience();

        /** The longest a token may live, {@code exp} minus {@code iat}; a longer-lived one is refused. */
        @WithName("max-lifetime")
        @WithDefault("24h")
        Duration maxLifetime();
    }
}
