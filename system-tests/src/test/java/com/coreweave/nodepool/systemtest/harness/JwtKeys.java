package com.coreweave.nodepool.systemtest.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The test stack's JWT signing key pair (RSA 2048, as {@code ./stack up} makes with openssl): the services check bearer
 * JWTs with its public half ({@code nodepool.auth.jwt.public-key-location}), and {@link #sign} makes RS256 tokens with
 * the claims {@code sub}, {@code org}, {@code roles}, {@code iat} and {@code exp}.
 */
public final class JwtKeys {

    /** What {@code ./stack up}'s tokens live: 30 days. */
    public static final Duration DEFAULT_LIFETIME = Duration.ofHours(20);

    /** The issuer and audience every service of the harness requires (as ./stack's). */
    public static final String ISSUER = "nodepool-local";

    public static final String AUDIENCE = "nodepool-api";

    private final Path publicKey;
    private final Path privateKeyFile;
    private final PrivateKey privateKey;

    private JwtKeys(Path publicKey, Path privateKeyFile, PrivateKey privateKey) {
        this.publicKey = publicKey;
        this.privateKeyFile = privateKeyFile;
        this.privateKey = privateKey;
    }

    /** Makes the key pair: {@code jwt-signing.key} (PKCS#8 PEM) and {@code jwt-signing.pub} (PEM) in {@code dir}. */
    public static JwtKeys create(Path dir) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair pair = generator.generateKeyPair();
            Path privateKeyFile = dir.resolve("jwt-signing.key");
            Path publicKey = dir.resolve("jwt-signing.pub");
            Files.createDirectories(dir);
            Files.writeString(
                    privateKeyFile,
                    ApiTls.Pem.encode("PRIVATE KEY", pair.getPrivate().getEncoded()));
            Files.writeString(
                    publicKey, ApiTls.Pem.encode("PUBLIC KEY", pair.getPublic().getEncoded()));
            return new JwtKeys(publicKey, privateKeyFile, pair.getPrivate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the JWT signing key", e);
        }
    }

    /** The public key (PEM) the services verify JWTs with. */
    public Path publicKey() {
        return publicKey;
    }

    /** The private key (PKCS#8 PEM) the tokens are signed with. */
    public Path privateKey() {
        return privateKeyFile;
    }

    /** The system property that tells a service where the public key is. */
    List<String> properties() {
        return List.of(
                "-Dnodepool.auth.jwt.public-key-location=" + publicKey,
                "-Dnodepool.auth.jwt.issuer=" + ISSUER,
                "-Dnodepool.auth.jwt.audience=" + AUDIENCE);
    }

    /** A signed JWT of {@code subject} in org {@code org} with {@code roles}, valid for 20 hours from now. */
    public String sign(String subject, String org, List<String> roles) {
        return sign(subject, org, roles, Instant.now(), DEFAULT_LIFETIME);
    }

    /**
     * A signed JWT (RS256) with the claims sub, org, roles, iat ({@code issuedAt}) and exp (after {@code lifetime}).
     */
    public String sign(String subject, String org, List<String> roles, Instant issuedAt, Duration lifetime) {
        return sign(subject, org, roles, issuedAt, lifetime, AUDIENCE);
    }

    /** The same, minted for {@code audience}: another audience's token is what a service must refuse. */
    public String sign(
            String subject, String org, List<String> roles, Instant issuedAt, Duration lifetime, String audience) {
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
        String payload = "{\"sub\":" + json(subject) + ",\"org\":" + json(org) + ",\"roles\":"
                + roles.stream().map(JwtKeys::json).collect(Collectors.joining(",", "[", "]"))
                + ",\"iss\":" + json(ISSUER) + ",\"aud\":" + json(audience) + ",\"iat\":"
                + issuedAt.getEpochSecond() + ",\"exp\":"
                + issuedAt.plus(lifetime).getEpochSecond() + "}";
        String input = base64url(header.getBytes(StandardCharsets.UTF_8)) + "."
                + base64url(payload.getBytes(StandardCharsets.UTF_8));
        try {
            Signature signature = Signature.getInstance("SHA256withRSA");
            signature.initSign(privateKey);
            signature.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + base64url(signature.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a JWT", e);
        }
    }

    private static String base64url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** A JSON string literal. */
    private static String json(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
