package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SignedTokensTest {

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final String ISSUER = "https://issuer.example";
    private static final String AUDIENCE = "nodepool";
    private static final Duration MAX_LIFETIME = Duration.ofHours(24);

    private static KeyPair rsa;
    private static KeyPair otherRsa;
    private static KeyPair ec;

    @BeforeAll
    static void keys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        rsa = generator.generateKeyPair();
        otherRsa = generator.generateKeyPair();
        KeyPairGenerator ecGenerator = KeyPairGenerator.getInstance("EC");
        ecGenerator.initialize(new ECGenParameterSpec("secp256r1"));
        ec = ecGenerator.generateKeyPair();
    }

    private static long in(long seconds) {
        return Instant.now().getEpochSecond() + seconds;
    }

    private static String claims(String sub, String org, String roles, Long exp, String iss) {
        StringBuilder json = new StringBuilder("{\"iat\":" + in(-10));
        if (sub != null) {
            json.append(",\"sub\":\"").append(sub).append('"');
        }
        if (org != null) {
            json.append(",\"org\":\"").append(org).append('"');
        }
        if (roles != null) {
            json.append(",\"roles\":").append(roles);
        }
        if (exp != null) {
            json.append(",\"exp\":").append(exp);
        }
        if (iss != null) {
            json.append(",\"iss\":\"").append(iss).append('"');
        }
        return json.append(",\"aud\":\"").append(AUDIENCE).append("\"}").toString();
    }

    private static String sign(String alg, String javaAlg, PrivateKey key, String claims) throws Exception {
        String signingInput =
                B64.encodeToString(("{\"alg\":\"" + alg + "\",\"typ\":\"JWT\"}").getBytes(StandardCharsets.UTF_8)) + "."
                        + B64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        Signature signature = Signature.getInstance(javaAlg);
        signature.initSign(key);
        signature.update(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + B64.encodeToString(signature.sign());
    }

    private static String rs256(PrivateKey key, String claims) throws Exception {
        return sign("RS256", "SHA256withRSA", key, claims);
    }

    private static SignedTokens byRsa() {
        return new SignedTokens(rsa.getPublic(), ISSUER, AUDIENCE, MAX_LIFETIME, Clock.systemUTC());
    }

    @Test
    void aValidRs256TokenNamesItsUserOrgAndRoles() throws Exception {
        String token = rs256(rsa.getPrivate(), claims("alice", "acme", "[\"operator\",\"viewer\"]", in(300), ISSUER));
        assertThat(SignedTokens.looksSigned(token)).isTrue();
        assertThat(byRsa().callerOf(token)).isEqualTo(new Caller("alice", "acme", Set.of("operator", "viewer")));
    }

    @Test
    void aValidEs256TokenIsAcceptedByAnEcKey() throws Exception {
        SignedTokens tokens = new SignedTokens(ec.getPublic(), ISSUER, AUDIENCE, MAX_LIFETIME, Clock.systemUTC());
        String token = sign(
                "ES256",
                "SHA256withECDSAinP1363Format",
                ec.getPrivate(),
                claims("bob", "globex", null, in(60), ISSUER));
        assertThat(tokens.callerOf(token)).isEqualTo(new Caller("bob", "globex", Set.of()));
    }

    @Test
    void anExpiredTokenIsRefused() throws Exception {
        String token = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", in(-3600), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(token))
                .isInstanceOf(AuthenticationFailure.class)
                .hasMessage("token expired");
    }

    @Test
    void aTokenWithoutExpiryIsRefused() throws Exception {
        String token = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", null, ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(token)).hasMessage("token has no exp claim");
    }

    @Test
    void aTokenSignedByAnotherKeyIsRefused() throws Exception {
        String token = rs256(otherRsa.getPrivate(), claims("alice", "acme", "[]", in(300), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(token)).hasMessage("token signature invalid");
    }

    @Test
    void aTokenWithAlteredClaimsIsRefused() throws Exception {
        String token = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", in(300), ISSUER));
        String[] parts = token.split("\\.");
        String altered = parts[0] + "."
                + B64.encodeToString(claims("alice", "acme", "[\"operator\"]", in(300), ISSUER)
                        .getBytes(StandardCharsets.UTF_8))
                + "." + parts[2];
        assertThatThrownBy(() -> byRsa().callerOf(altered)).hasMessage("token signature invalid");
    }

    @Test
    void anotherAlgorithmThanTheKeysIsRefused() throws Exception {
        String unsigned = B64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + B64.encodeToString(
                        claims("alice", "acme", "[]", in(300), ISSUER).getBytes(StandardCharsets.UTF_8))
                + ".";
        assertThatThrownBy(() -> byRsa().callerOf(unsigned)).isInstanceOf(AuthenticationFailure.class);
        String es = sign(
                "ES256",
                "SHA256withECDSAinP1363Format",
                ec.getPrivate(),
                claims("alice", "acme", "[]", in(300), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(es)).isInstanceOf(AuthenticationFailure.class);
    }

    @Test
    void aTokenOfAnotherIssuerIsRefused() throws Exception {
        String token = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", in(300), "https://evil.example"));
        assertThatThrownBy(() -> byRsa().callerOf(token)).hasMessage("token issuer not accepted");
    }

    @Test
    void aTokenMintedForAnotherAudienceOrWithoutOneIsRefused() throws Exception {
        String valid = claims("alice", "acme", "[]", in(300), ISSUER);
        String other = rs256(rsa.getPrivate(), valid.replace("\"aud\":\"nodepool\"", "\"aud\":\"billing\""));
        assertThatThrownBy(() -> byRsa().callerOf(other)).hasMessage("token audience not accepted");
        String without = rs256(rsa.getPrivate(), valid.replace(",\"aud\":\"nodepool\"", ""));
        assertThatThrownBy(() -> byRsa().callerOf(without)).hasMessage("token audience not accepted");
        String noIssuer = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", in(300), null));
        assertThatThrownBy(() -> byRsa().callerOf(noIssuer)).hasMessage("token issuer not accepted");
    }

    @Test
    void aTokenThatLivesLongerThanTheMaximumIsRefusedWhileStillUnexpired() throws Exception {
        String month = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", in(30 * 86_400), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(month)).hasMessage("token lives longer than 1440 minutes");
        String day = rs256(rsa.getPrivate(), claims("alice", "acme", "[]", in(86_000), ISSUER));
        assertThat(byRsa().callerOf(day).user()).isEqualTo("alice");
    }

    @Test
    void noIssuerOrAudienceConfiguredFailsTheStart() {
        assertThatThrownBy(() -> new SignedTokens(rsa.getPublic(), ISSUER, null, MAX_LIFETIME, Clock.systemUTC()))
                .hasMessageContaining("nodepool.auth.jwt.issuer and .audience");
        assertThatThrownBy(() -> new SignedTokens(rsa.getPublic(), " ", AUDIENCE, MAX_LIFETIME, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTokenWithoutOrgOrSubjectIsRefused() throws Exception {
        String noOrg = rs256(rsa.getPrivate(), claims("alice", null, "[]", in(300), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(noOrg)).hasMessage("token has no org claim");
        String noSub = rs256(rsa.getPrivate(), claims(null, "acme", "[]", in(300), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(noSub)).isInstanceOf(AuthenticationFailure.class);
        String badRoles = rs256(rsa.getPrivate(), claims("alice", "acme", "\"operator\"", in(300), ISSUER));
        assertThatThrownBy(() -> byRsa().callerOf(badRoles)).hasMessageContaining("roles claim");
    }

    @Test
    void garbageIsRefused() {
        assertThatThrownBy(() -> byRsa().callerOf("not.a.jwt")).hasMessage("token is not a valid signed token");
        assertThat(SignedTokens.looksSigned("demo-token")).isFalse();
        assertThat(SignedTokens.looksSigned("a.b")).isFalse();
    }

    @Test
    void theKeyIsReadFromAPemFile(@TempDir Path dir) throws Exception {
        Path rsaPem = dir.resolve("rsa.pem");
        Files.writeString(rsaPem, pem(rsa.getPublic().getEncoded()));
        Path ecPem = dir.resolve("ec.pem");
        Files.writeString(ecPem, pem(ec.getPublic().getEncoded()));
        assertThat(SignedTokens.readPublicKey(rsaPem)).isEqualTo(rsa.getPublic());
        assertThat(SignedTokens.readPublicKey(ecPem)).isEqualTo(ec.getPublic());
        Path none = dir.resolve("none.pem");
        Files.writeString(none, "nothing");
        assertThatThrownBy(() -> SignedTokens.readPublicKey(none)).hasMessageContaining("no PEM PUBLIC KEY");
    }

    private static String pem(byte[] der) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(der)
                + "\n-----END PUBLIC KEY-----\n";
    }
}
