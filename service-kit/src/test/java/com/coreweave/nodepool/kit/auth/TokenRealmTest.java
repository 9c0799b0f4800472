package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenRealmTest {

    private static TokenRealm realm(Map<String, String> tokens, Optional<String> keyLocation) {
        TokenRealm realm = new TokenRealm();
        realm.settings = new AuthSettings() {
            @Override
            public Map<String, String> staticTokens() {
                return tokens;
            }

            @Override
            public Jwt jwt() {
                return new Jwt() {
                    @Override
                    public Optional<String> publicKeyLocation() {
                        return keyLocation;
                    }

                    @Override
                    public Optional<String> issuer() {
                        return Optional.empty();
                    }

                    @Override
                    public Optional<String> audience() {
                        return Optional.empty();
                    }

                    @Override
                    public Duration maxLifetime() {
                        return Duration.ofHours(24);
                    }
                };
            }

            @Override
            public Optional<String> clientCaLocation() {
                return Optional.empty();
            }

            @Override
            public String peerSecret() {
                return "a-peer-secret-of-at-least-32-characters";
            }
        };
        return realm;
    }

    @Test
    void aBearerTokenIsAStaticTokenUnlessItHasTwoDots() {
        TokenRealm realm = realm(Map.of(StaticTokens.sha256Hex("demo-token"), "demo,demo"), Optional.empty());
        assertThat(realm.callerOfBearer("demo-token").org()).isEqualTo("demo");
        assertThatThrownBy(() -> realm.callerOfBearer("other-token"))
                .isInstanceOf(AuthenticationFailure.class)
                .hasMessage("unknown bearer token");
        assertThatThrownBy(() -> realm.callerOfBearer("a.b.c")).hasMessage("signed tokens are not accepted here");
    }

    @Test
    void whatOneInstanceAssertsAnotherAccepts() {
        TokenRealm one = realm(Map.of(), Optional.empty());
        TokenRealm other = realm(Map.of(), Optional.empty());
        Caller alice = new Caller("acme", true);
        PeerTarget read = new PeerTarget("nodepool-api-service", "GET", "/internal/pool-views/acme");
        assertThat(other.callerOfPeerAssertion(one.peerAssertion(alice, read), read))
                .isEqualTo(alice);
    }

    @Test
    void anUnreadableKeyFailsTheStart() {
        TokenRealm realm =
                realm(Map.of(), Optional.of(Path.of("/nonexistent/key.pem").toString()));
        assertThatThrownBy(() -> realm.callerOfBearer("x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nodepool.auth.jwt.public-key-location");
    }

    @Test
    void aPublicKeyWithoutIssuerAndAudienceFailsTheStart(@TempDir Path dir) throws Exception {
        java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        Path pem = dir.resolve("jwt.pub");
        Files.writeString(
                pem,
                "-----BEGIN PUBLIC KEY-----\n"
                        + Base64.getMimeEncoder()
                                .encodeToString(
                                        generator.generateKeyPair().getPublic().getEncoded())
                        + "\n-----END PUBLIC KEY-----\n");
        TokenRealm realm = realm(Map.of(), Optional.of(pem.toString()));
        assertThatThrownBy(() -> realm.callerOfBearer("x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nodepool.auth.jwt.issuer must be too");
    }
}
