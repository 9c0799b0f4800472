package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StaticTokensTest {

    @Test
    void aTokenIsFoundByItsHashAndNamesItsUserOrgAndRoles() {
        StaticTokens tokens = new StaticTokens(Map.of(
                StaticTokens.sha256Hex("s3cret"), "alice,acme",
                StaticTokens.sha256Hex("ops"), "bob,platform-admin,operator,auditor"));

        assertThat(tokens.callerOf("s3cret")).contains(new Caller("alice", "acme", Set.of()));
        Caller bob = tokens.callerOf("ops").orElseThrow();
        assertThat(bob.roles()).containsExactlyInAnyOrder("operator", "auditor");
        assertThat(bob.operator()).isTrue();
        assertThat(bob.admin()).isTrue();
        assertThat(tokens.callerOf("s3cret ")).isEmpty();
        assertThat(tokens.callerOf("unknown")).isEmpty();
        assertThat(tokens.callerOf(StaticTokens.sha256Hex("s3cret")))
                .as("the hash itself is no token")
                .isEmpty();
    }

    @Test
    void quotedAndUpperCaseKeysAreTheSameHash() {
        String hex = StaticTokens.sha256Hex("s3cret").toUpperCase();
        assertThat(new StaticTokens(Map.of("\"" + hex + "\"", "alice,acme")).callerOf("s3cret"))
                .isPresent();
    }

    @Test
    void malformedEntriesFailWithTheirKeyNamed() {
        assertThatThrownBy(() -> new StaticTokens(Map.of("demo-token", "demo,demo")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodepool.auth.static-tokens.demo-token")
                .hasMessageContaining("64 hex digits");
        String hex = StaticTokens.sha256Hex("x");
        assertThatThrownBy(() -> new StaticTokens(Map.of(hex, "alice")))
                .hasMessageContaining("<user>,<org>[,<role>...]");
        assertThatThrownBy(() -> new StaticTokens(Map.of(hex, "alice,")))
                .hasMessageContaining("only an operator's token may name no org");
        assertThat(new StaticTokens(Map.of(hex, "ops,,operator")).callerOf("x"))
                .contains(new Caller("ops", "", Set.of("operator")));
    }

    @Test
    void theDemoAndTestProfilesKnowTheSameTokensAsBefore() throws IOException {
        Properties config = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/microprofile-config.properties")) {
            config.load(in);
        }
        for (String profile : new String[] {"%demo.", "%test."}) {
            Map<String, String> entries = new HashMap<>();
            String prefix = profile + "nodepool.auth.static-tokens.";
            config.stringPropertyNames().stream()
                    .filter(name -> name.startsWith(prefix))
                    .forEach(name -> entries.put(name.substring(prefix.length()), config.getProperty(name)));
            StaticTokens tokens = new StaticTokens(entries);
            assertThat(tokens.callerOf("demo-token").orElseThrow().org()).isEqualTo("demo");
            assertThat(tokens.callerOf("other-token").orElseThrow().org()).isEqualTo("other");
            assertThat(tokens.callerOf("dashboard-token").orElseThrow().org()).isEqualTo("dashboard");
            Caller admin = tokens.callerOf("admin-token").orElseThrow();
            assertThat(admin.org()).isEqualTo("platform-admin");
            assertThat(admin.operator()).isTrue();
            assertThat(tokens.callerOf("demo-token").orElseThrow().operator()).isFalse();
            assertThat(config.getProperty(profile + "nodepool.auth.peer-secret"))
                    .hasSizeGreaterThanOrEqualTo(32);
        }
        Properties demo = config;
        assertThat(demo.getProperty("%demo.nodepool.auth.static-tokens." + StaticTokens.sha256Hex("kubectl-token")))
                .isEqualTo("kubectl,kubectl-it");
        assertThat(demo.getProperty(
                        "%demo.nodepool.auth.static-tokens." + StaticTokens.sha256Hex("kubectl-other-token")))
                .isEqualTo("kubectl-other,kubectl-other");
        assertThat(config.stringPropertyNames())
                .noneMatch(
                        name -> name.contains("nodepool.auth.tokens") || name.contains("nodepool.auth.admin-tokens"));
    }
}
