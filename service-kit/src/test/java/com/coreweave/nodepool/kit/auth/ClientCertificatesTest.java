package com.coreweave.nodepool.kit.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientCertificatesTest {

    @Test
    void theCommonNameIsTheUserAndTheOrganizationTheOrg() {
        assertThat(ClientCertificates.callerOf(new X500Principal("CN=alice, O=acme, C=US")))
                .isEqualTo(new Caller("alice", "acme", Set.of()));
    }

    @Test
    void theOperatorsOrganizationGivesTheOperatorRole() {
        Caller ops = ClientCertificates.callerOf(new X500Principal("CN=bob, O=nodepool:operators"));
        assertThat(ops).isEqualTo(new Caller("bob", "", Set.of(Caller.OPERATOR)));
        assertThat(ops.operator()).isTrue();
        assertThat(ClientCertificates.callerOf(new X500Principal("CN=bob, O=nodepool:operators, O=platform-admin")))
                .isEqualTo(new Caller("bob", "platform-admin", Set.of(Caller.OPERATOR)));
        assertThat(ClientCertificates.callerOf(new X500Principal("CN=carol+O=nodepool:operators"))
                        .operator())
                .as("a multi-valued RDN counts too")
                .isTrue();
    }

    @Test
    void aSubjectWithoutUserOrOrgIsRefused() {
        assertThatThrownBy(() -> ClientCertificates.callerOf(new X500Principal("O=acme")))
                .isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("exactly one CN");
        assertThatThrownBy(() -> ClientCertificates.callerOf(new X500Principal("CN=a, CN=b, O=acme")))
                .hasMessageContaining("exactly one CN");
        assertThatThrownBy(() -> ClientCertificates.callerOf(new X500Principal("CN=alice, OU=acme")))
                .hasMessageContaining("names no organization (O)");
        assertThatThrownBy(() -> ClientCertificates.callerOf(new X500Principal("CN=alice, O=acme, O=globex")))
                .hasMessageContaining("more than one organization");
    }

    @Test
    void aRealCertificateIsMappedByItsSubject(@TempDir Path dir) throws Exception {
        X509Certificate certificate = selfSigned(dir, "client", "CN=dana, O=nodepool:operators, O=platform-admin");

        assertThat(ClientCertificates.callerOf(certificate))
                .isEqualTo(new Caller("dana", "platform-admin", Set.of(Caller.OPERATOR)));
    }

    @Test
    void shouldAcceptOnlyACertificateSignedByAConfiguredClientCa(@TempDir Path dir) throws Exception {
        X509Certificate ours = selfSigned(dir, "ours", "CN=ours, O=demo");
        X509Certificate impostor = selfSigned(dir, "impostor", "CN=ours, O=demo");

        assertThat(ClientCertificates.signedByAny(ours, List.of(ours))).isTrue();
        assertThat(ClientCertificates.signedByAny(impostor, List.of(ours)))
                .as("same names, another key: not ours")
                .isFalse();
        assertThat(ClientCertificates.signedByAny(ours, List.of())).isFalse();
    }

    /** A self-signed certificate made by the JDK's keytool (its own CA, for these tests). */
    private static X509Certificate selfSigned(Path dir, String alias, String subject) throws Exception {
        Path store = dir.resolve(alias + ".p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        alias,
                        "-keyalg",
                        "EC",
                        "-dname",
                        subject,
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertThat(keytool.waitFor()).as(output).isZero();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, "changeit".toCharArray());
        }
        return (X509Certificate) keys.getCertificate(alias);
    }
}
