package com.coreweave.nodepool.api.kube;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code metadata.continue} of a list page: whose list it is ({@code scope}: the caller's org, empty for an
 * operator's list of every org), the list's resourceVersion (the first page's, so the pages form one list a watch can
 * follow) and the key the next page starts after. Opaque to clients, as Kubernetes says, and signed by the server
 * (HMAC-SHA256), so a token that was forged, altered or issued to another caller is refused rather than followed.
 */
public record ContinueToken(String scope, String version, String after) {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    /** Bytes of the signature kept: 128 bits are far beyond guessing. */
    private static final int SIGNATURE_BYTES = 16;

    public String encode(byte[] secret) {
        byte[] payload = payload().getBytes(StandardCharsets.UTF_8);
        return ENCODER.encodeToString(payload) + "." + ENCODER.encodeToString(sign(secret, payload));
    }

    /**
     * The token {@code text} encodes, if this server issued it to a caller of {@code scope};
     * {@link IllegalArgumentException} saying why not otherwise.
     */
    public static ContinueToken decode(String text, byte[] secret, String scope) {
        int dot = text.indexOf('.');
        if (dot <= 0) {
            throw new IllegalArgumentException("the continue token was not issued by this server");
        }
        byte[] payload;
        byte[] signature;
        try {
            payload = DECODER.decode(text.substring(0, dot));
            signature = DECODER.decode(text.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the continue token is not valid base64");
        }
        if (!MessageDigest.isEqual(signature, sign(secret, payload))) {
            throw new IllegalArgumentException("the continue token was not issued by this server or was altered");
        }
        String[] parts = new String(payload, StandardCharsets.UTF_8).split("\n", -1);
        if (parts.length != 3 || parts[1].isEmpty() || parts[2].isEmpty()) {
            throw new IllegalArgumentException("the continue token does not name a list position");
        }
        if (!parts[0].equals(scope == null ? "" : scope)) {
            throw new IllegalArgumentException("the continue token was issued for another caller's list");
        }
        return new ContinueToken(parts[0], parts[1], parts[2]);
    }

    private String payload() {
        return (scope == null ? "" : scope) + "\n" + version + "\n" + after;
    }

    private static byte[] sign(byte[] secret, byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return Arrays.copyOf(mac.doFinal(payload), SIGNATURE_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
