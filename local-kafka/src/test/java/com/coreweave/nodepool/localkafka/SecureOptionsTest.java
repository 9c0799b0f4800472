package com.coreweave.nodepool.localkafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The secured broker's command line and principals file, checked before anything starts. */
class SecureOptionsTest {

    @TempDir
    Path dir;

    @Test
    void aTlsDirNeedsPrincipalsAndTheReverse() {
        assertThatThrownBy(() -> LocalKafkaOptions.parse("--data-dir", "d", "--tls-dir", "t"))
                .hasMessageContaining("--tls-dir and --principals go together");
        assertThatThrownBy(() -> LocalKafkaOptions.parse("--data-dir", "d", "--principals", "p"))
                .hasMessageContaining("--tls-dir and --principals go together");
        assertThat(LocalKafkaOptions.parse("--data-dir", "d").secure()).isFalse();
        LocalKafkaOptions secure = LocalKafkaOptions.parse(
                "--data-dir", "d", "--tls-dir", "t", "--principals", "p", "--internal-port", "9999");
        assertThat(secure.secure()).isTrue();
        assertThat(secure.security().keyStore().getFileName()).hasToString("kafka-broker.p12");
    }

    @Test
    void theSecuredBrokerHasNoPlaintextListenerAndDeniesWhatNoAclAllows() {
        Map<String, String> settings = LocalKafkaOptions.parse("--data-dir", "d", "--tls-dir", "t", "--principals", "p")
                .security()
                .brokerSettings(9092, 9094, 9093);

        assertThat(settings.get("listener.security.protocol.map"))
                .isEqualTo("CLIENTS:SASL_SSL,BROKER:SSL,CONTROLLER:SSL")
                .doesNotContain("PLAINTEXT");
        assertThat(settings)
                .containsEntry("allow.everyone.if.no.acl.found", "false")
                .containsEntry("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .containsEntry("listener.name.broker.ssl.client.auth", "required")
                .containsEntry("listener.name.controller.ssl.client.auth", "required");
    }

    @Test
    void aPrincipalsFileNamesOnlyKnownPrincipalsWithLongPasswords() throws Exception {
        Path good =
                Files.writeString(dir.resolve("good"), "tenant-demo=0123456789abcdef\nquota-service=abcdefabcdef01\n");
        assertThat(LocalKafkaMain.principals(good)).containsOnlyKeys("tenant-demo", "quota-service");

        Path unknown = Files.writeString(dir.resolve("unknown"), "mallory=0123456789abcdef\n");
        assertThatThrownBy(() -> LocalKafkaMain.principals(unknown)).hasMessageContaining("mallory");

        Path shortPassword = Files.writeString(dir.resolve("short"), "tenant-demo=secret\n");
        assertThatThrownBy(() -> LocalKafkaMain.principals(shortPassword)).hasMessageContaining("shorter than 12");

        Path empty = Files.writeString(dir.resolve("empty"), "# nobody\n");
        assertThatThrownBy(() -> LocalKafkaMain.principals(empty)).hasMessageContaining("names no principal");
    }
}
