package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ContinueTokenTest {

    private static final byte[] SECRET = "test-secret".getBytes(StandardCharsets.UTF_8);

    @Test
    void aTokenIssuedToAnOrgContinuesThatOrgsList() {
        String token = new ContinueToken("demo", "L12.4.7", "demo/pool-9").encode(SECRET);

        assertThat(ContinueToken.decode(token, SECRET, "demo"))
                .isEqualTo(new ContinueToken("demo", "L12.4.7", "demo/pool-9"));
        assertThat(ContinueToken.decode(new ContinueToken(null, "L1", "demo/a").encode(SECRET), SECRET, null)
                        .after())
                .as("an operator's list of every org")
                .isEqualTo("demo/a");
    }

    @Test
    void anotherOrgsTokenIsRefused() {
        String demos = new ContinueToken("demo", "L12", "demo/pool-9").encode(SECRET);

        assertThatThrownBy(() -> ContinueToken.decode(demos, SECRET, "other"))
                .hasMessageContaining("another caller's list");
        assertThatThrownBy(() -> ContinueToken.decode(demos, SECRET, null))
                .as("an org's position is not an operator's either")
                .hasMessageContaining("another caller's list");
    }

    @Test
    void aForgedOrAlteredTokenIsRefused() {
        // What the attacker sent: base64url("<rv of a real list>\n0"), unsigned.
        String forged =
                Base64.getUrlEncoder().withoutPadding().encodeToString("L12\n0".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> ContinueToken.decode(forged, SECRET, "other"))
                .hasMessageContaining("not issued by this server");

        String real = new ContinueToken("other", "L12", "other/a").encode(SECRET);
        String payload = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("other\nL12\n0".getBytes(StandardCharsets.UTF_8));
        String altered = payload + real.substring(real.indexOf('.'));
        assertThatThrownBy(() -> ContinueToken.decode(altered, SECRET, "other")).hasMessageContaining("altered");
        assertThatThrownBy(() -> ContinueToken.decode(real, "another-secret".getBytes(StandardCharsets.UTF_8), "other"))
                .as("signed with another key")
                .hasMessageContaining("altered");
        assertThatThrownBy(() -> ContinueToken.decode("not base64!.x", SECRET, "other"))
                .hasMessageContaining("base64");
    }
}
