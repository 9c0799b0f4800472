package com.coreweave.nodepool.kit.auth;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What one instance tells another it asks on a caller's behalf, instead of the caller's own credential: the caller
 * (user, org, roles), the request it is for ({@link PeerTarget}: service, method, path), an expiry {@link #LIFETIME}
 * away and the audience {@value #AUDIENCE}, signed with HMAC-SHA256 under the secret every instance shares
 * ({@code nodepool.auth.peer-secret}). The form is {@code base64url(json).base64url(mac)}; the signature is checked in
 * constant time before the claims are read.
 */
final class PeerAssertions {

    /** The header an assertion travels in; accepted only on {@code /internal/...} paths and for reads. */
    static final String HEADER = CurrentCaller.PEER_ASSERTION_HEADER;

    static final String AUDIENCE = "peer";
    // Long enough for one forwarded read between instances whose clocks agree within seconds, no more.
    static final Duration LIFETIME = Duration.ofSeconds(10);
    private static final int MIN_SECRET_LENGTH = 32;
    private static final String ALGORITHM = "HmacSHA256";
    private static final ObjectMapper JSON =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /** The claims an assertion carries. */
    record Claims(
            String sub, String org, List<String> roles, long exp, String aud, String svc, String method, String path) {}

    private final SecretKeySpec key;
    private final Clock clock;

    PeerAssertions(String secret, Clock clock) {
        if (secret == null || secret.length() < MIN_SECRET_LENGTH) {
            throw new IllegalArgumentException(
                    "nodepool.auth.peer-secret must be at least " + MIN_SECRET_LENGTH + " characters");
        }
        this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
        this.clock = clock;
    }

    /** An assertion that {@code caller} is calling {@code target}, valid for {@link #LIFETIME}. */
    String sign(Caller caller, PeerTarget target) {
        Claims claims = new Claims(
                caller.user(),
                caller.org(),
                caller.roles().stream().sorted().toList(),
                clock.instant().plus(LIFETIME).getEpochSecond(),
                AUDIENCE,
                target.service(),
                target.method(),
                target.path());
        try {
            String payload = ENCODER.encodeToString(JSON.writeValueAsBytes(claims));
            return payload + "." + ENCODER.encodeToString(mac(payload));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The caller a valid assertion for {@code request} names; an {@link AuthenticationFailure} for a forged, altered or
     * stale one, or one made for another service, method or path.
     */
    Caller verify(String assertion, PeerTarget request) {
        int dot = assertion.indexOf('.');
        if (dot <= 0 || dot != assertion.lastIndexOf('.')) {
            throw new AuthenticationFailure("peer assertion malformed");
        }
        String payload = assertion.substring(0, dot);
        byte[] signature;
        try {
            signature = DECODER.decode(assertion.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationFailure("peer assertion malformed");
        }
        if (!MessageDigest.isEqual(mac(payload), signature)) {
            throw new AuthenticationFailure("peer assertion signature invalid");
        }
        Claims claims;
        try {
            claims = JSON.readValue(DECODER.decode(payload), Claims.class);
        } catch (IOException | IllegalArgumentException e) {
            throw new AuthenticationFailure("peer assertion malformed");
        }
        if (!AUDIENCE.equals(claims.aud())) {
            throw new AuthenticationFailure("peer assertion audience not accepted");
        }
        if (clock.instant().getEpochSecond() >= claims.exp()) {
            throw new AuthenticationFailure("peer assertion expired");
        }
        if (!request.equals(new PeerTarget(claims.svc(), claims.method(), claims.path()))) {
            throw new AuthenticationFailure("peer assertion made for another request");
        }
        if (claims.sub() == null || claims.roles() == null) {
            throw new AuthenticationFailure("peer assertion malformed");
        }
        return new Caller(claims.sub(), claims.org(), Set.copyOf(claims.roles()));
    }

    private byte[] mac(String payload) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(("nodepool-peer-v1." + payload).getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
