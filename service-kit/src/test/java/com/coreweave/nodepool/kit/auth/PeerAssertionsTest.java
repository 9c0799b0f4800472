package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PeerAssertionsTest {

    private static final String SECRET = "a-peer-secret-of-at-least-32-characters";
    private static final Instant NOW = Instant.parse("2026-05-01T10:00:00Z");
    private static final Caller ALICE = new Caller("alice", "acme", Set.of("operator", "viewer"));
    private static final PeerTarget READ = new PeerTarget("nodepool-api-service", "GET", "/internal/pool-views/acme");

    private static PeerAssertions at(Instant now) {
        return new PeerAssertions(SECRET, Clock.fixed(now, ZoneOffset.UTC));
    }

    @Test
    void anAssertionNamesTheCallerItWasSignedFor() {
        String assertion = at(NOW).sign(ALICE, READ);
        assertThat(at(NOW.plusSeconds(9)).verify(assertion, READ)).isEqualTo(ALICE);
        assertThat(assertion).doesNotContain("alice").as("the payload is encoded, not plain");
    }

    @Test
    void itExpiresAfterTenSeconds() {
        String assertion = at(NOW).sign(ALICE, READ);
        assertThat(PeerAssertions.LIFETIME).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> at(NOW.plusSeconds(10)).verify(assertion, READ))
                .isInstanceOf(AuthenticationFailure.class)
                .hasMessage("peer assertion expired");
    }

    @Test
    void anotherSecretsAssertionIsRefused() {
        String forged = new PeerAssertions(
                        "another-secret-of-at-least-32-characters!", Clock.fixed(NOW, ZoneOffset.UTC))
                .sign(ALICE, READ);
        assertThatThrownBy(() -> at(NOW).verify(forged, READ)).hasMessage("peer assertion signature invalid");
    }

    @Test
    void aTamperedPayloadOrSignatureIsRefused() {
        String assertion = at(NOW).sign(new Caller("alice", "acme", Set.of()), READ);
        String payload = assertion.substring(0, assertion.indexOf('.'));
        String signature = assertion.substring(assertion.indexOf('.') + 1);
        String json = new String(Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8);
        String escalated = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(
                        json.replace("\"roles\":[]", "\"roles\":[\"operator\"]").getBytes(StandardCharsets.UTF_8));
        assertThat(escalated).isNotEqualTo(payload);

        assertThatThrownBy(() -> at(NOW).verify(escalated + "." + signature, READ))
                .hasMessage("peer assertion signature invalid");
        char last = signature.charAt(0) == 'A' ? 'B' : 'A';
        assertThatThrownBy(() -> at(NOW).verify(payload + "." + last + signature.substring(1), READ))
                .hasMessage("peer assertion signature invalid");
        assertThatThrownBy(() -> at(NOW).verify(payload, READ)).hasMessage("peer assertion malformed");
        assertThatThrownBy(() -> at(NOW).verify(payload + "." + signature + ".x", READ))
                .hasMessage("peer assertion malformed");
        assertThatThrownBy(() -> at(NOW).verify(payload + ".!!", READ)).hasMessage("peer assertion malformed");
    }

    @Test
    void aSignedPayloadForAnotherAudienceIsRefused() throws Exception {
        // Signed with the right secret, but not for a peer: still refused.
        PeerAssertions peers = at(NOW);
        String json = "{\"sub\":\"alice\",\"org\":\"acme\",\"roles\":[],\"exp\":" + (NOW.getEpochSecond() + 30)
                + ",\"aud\":\"browser\"}";
        String payload = Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
        var mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String signature = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(mac.doFinal(("nodepool-peer-v1." + payload).getBytes(StandardCharsets.US_ASCII)));
        assertThatThrownBy(() -> peers.verify(payload + "." + signature, READ))
                .hasMessage("peer assertion audience not accepted");
    }

    @Test
    void anAssertionMadeForOneRequestOpensNoOther() {
        String assertion = at(NOW).sign(ALICE, READ);
        for (PeerTarget other : List.of(
                new PeerTarget("quota-service", "GET", READ.path()),
                new PeerTarget(READ.service(), "HEAD", READ.path()),
                new PeerTarget(READ.service(), "GET", "/internal/pool-views/globex"))) {
            assertThatThrownBy(() -> at(NOW).verify(assertion, other))
                    .isInstanceOf(AuthenticationFailure.class)
                    .hasMessage("peer assertion made for another request");
        }
    }

    @Test
    void aShortSecretIsRefusedAtStart() {
        assertThatThrownBy(() -> new PeerAssertions("short", Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodepool.auth.peer-secret");
    }
}
