package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

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
        assertThat(other.callerOfPeerAssertion(one.peerAssertion(alice))).isEqualTo(alice);
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
    void peerAssertionsCountOnlyOnInternalPaths() {
        assertThat(BearerTokenFilter.isInternal("/internal/pool-views/acme")).isTrue();
        assertThat(BearerTokenFilter.isInternal("/internal")).isFalse();
        assertThat(BearerTokenFilter.isInternal("/internalx/a")).isFalse();
        assertThat(BearerTokenFilter.isInternal("/apis/compute.coreweave.com/v1alpha1/nodepools"))
                .isFalse();
    }
}
