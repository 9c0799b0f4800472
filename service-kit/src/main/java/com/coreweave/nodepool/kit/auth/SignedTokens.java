package com.coreweave.nodepool.kit.auth;

import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.json.JsonArray;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.interfaces.ECPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jwt.consumer.ErrorCodes;
import org.jose4j.jwt.consumer.InvalidJwtException;

/**
 * Signed bearer tokens (JWT, RS256 or ES256 by the configured key's type), verified with the smallrye-jwt library:
 * {@code sub} is the user, {@code org} the org, {@code roles} an array of roles; {@code iss}, {@code aud} and
 * {@code exp} are required and checked, and a token may live at most {@code maxLifetime} (from {@code iat}, or from now
 * if it has none), so a leaked long-lived token is refused even while it has not expired.
 */
final class SignedTokens {

    private final DefaultJWTParser parser;
    private final Duration maxLifetime;
    private final Clock clock;

    SignedTokens(PublicKey key, String issuer, String audience, Duration maxLifetime, Clock clock) {
        if (issuer == null || issuer.isBlank() || audience == null || audience.isBlank()) {
            throw new IllegalArgumentException("signed tokens need nodepool.auth.jwt.issuer and .audience");
        }
        JWTAuthContextInfo info = new JWTAuthContextInfo(key, issuer);
        info.setSignatureAlgorithm(
                Set.of(key instanceof ECPublicKey ? SignatureAlgorithm.ES256 : SignatureAlgorithm.RS256));
        info.setExpectedAudience(Set.of(audience));
        info.setClockSkew(CLOCK_SKEW_SECONDS);
        this.parser = new DefaultJWTParser(info);
        this.maxLifetime = maxLifetime;
        this.clock = clock;
    }

    private static final int CLOCK_SKEW_SECONDS = 30;

    /** Whether {@code token} has the shape of a JWT: three parts, two dots. */
    static boolean looksSigned(String token) {
        return token.chars().filter(c -> c == '.').count() == 2;
    }

    /** The caller a valid token names; an {@link AuthenticationFailure} saying what is wrong with any other. */
    Caller callerOf(String token) {
        JsonWebToken jwt;
        try {
            jwt = parser.parse(token);
        } catch (ParseException e) {
            throw new AuthenticationFailure(reason(e));
        }
        long issued = jwt.getIssuedAtTime() > 0
                ? jwt.getIssuedAtTime()
                : clock.instant().getEpochSecond();
        if (jwt.getExpirationTime() - issued > maxLifetime.toSeconds() + CLOCK_SKEW_SECONDS) {
            throw new AuthenticationFailure("token lives longer than " + maxLifetime.toMinutes() + " minutes");
        }
        String user = jwt.getSubject();
        if (user == null || user.isBlank()) {
            throw new AuthenticationFailure("token has no sub claim");
        }
        Set<String> roles = roles(jwt.getClaim("roles"));
        Object org = jwt.getClaim("org");
        String orgName = org instanceof JsonString s ? s.getString() : org instanceof String s ? s : null;
        if (orgName == null || orgName.isBlank()) {
            throw new AuthenticationFailure("token has no org claim");
        }
        return new Caller(user, orgName, roles);
    }

    private static Set<String> roles(Object claim) {
        Set<String> roles = new LinkedHashSet<>();
        if (claim == null) {
            return roles;
        }
        if (claim instanceof JsonArray array) {
            for (JsonValue value : array) {
                if (!(value instanceof JsonString role)) {
                    throw new AuthenticationFailure("token roles claim is not an array of strings");
                }
                roles.add(role.getString());
            }
        } else if (claim instanceof Collection<?> values) {
            values.forEach(value -> roles.add(String.valueOf(value)));
        } else {
            throw new AuthenticationFailure("token roles claim is not an array of strings");
        }
        return roles;
    }

    private static String reason(ParseException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidJwtException invalid) {
                if (invalid.hasExpired()) {
                    return "token expired";
                }
                if (invalid.hasErrorCode(ErrorCodes.SIGNATURE_INVALID)
                        || invalid.hasErrorCode(ErrorCodes.SIGNATURE_MISSING)) {
                    return "token signature invalid";
                }
                if (invalid.hasErrorCode(ErrorCodes.EXPIRATION_MISSING)) {
                    return "token has no exp claim";
                }
                if (invalid.hasErrorCode(ErrorCodes.ISSUER_INVALID)
                        || invalid.hasErrorCode(ErrorCodes.ISSUER_MISSING)) {
                    return "token issuer not accepted";
                }
                if (invalid.hasErrorCode(ErrorCodes.AUDIENCE_INVALID)
                        || invalid.hasErrorCode(ErrorCodes.AUDIENCE_MISSING)) {
                    return "token audience not accepted";
                }
                if (invalid.hasErrorCode(ErrorCodes.NOT_YET_VALID)) {
                    return "token not yet valid";
                }
            }
        }
        return "token is not a valid signed token";
    }

    /** The public key in a PEM file: a {@code PUBLIC KEY} (RSA or EC) or a {@code CERTIFICATE}. */
    static PublicKey readPublicKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        if (text.contains("-----BEGIN CERTIFICATE-----")) {
            return CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(text.getBytes(StandardCharsets.US_ASCII)))
                    .getPublicKey();
        }
        int begin = text.indexOf("-----BEGIN PUBLIC KEY-----");
        int end = text.indexOf("-----END PUBLIC KEY-----");
        if (begin < 0 || end < begin) {
            throw new GeneralSecurityException(pem + " holds no PEM PUBLIC KEY or CERTIFICATE");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + "-----BEGIN PUBLIC KEY-----".length(), end));
        X509EncodedKeySpec spec = new X509EncodedKeySpec(der);
        try {
            return KeyFactory.getInstance("RSA").generatePublic(spec);
        } catch (GeneralSecurityException notRsa) {
            return KeyFactory.getInstance("EC").generatePublic(spec);
        }
    }
}
