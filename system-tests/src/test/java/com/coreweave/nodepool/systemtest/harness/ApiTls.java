package com.coreweave.nodepool.systemtest.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A self-signed certificate for localhost that the API serves HTTPS with, made by the JDK's keytool: kubectl sends a
 * bearer token only over TLS, so a test that drives kubectl needs the API on HTTPS, trusting this certificate.
 */
public record ApiTls(Path keyStore, String password, Path certificate) {

    private static final String PASSWORD = "nodepool-test";

    /** Makes the key store and the PEM certificate in {@code dir}. */
    static ApiTls create(Path dir) {
        Path keyStore = dir.resolve("api.p12");
        Path certificate = dir.resolve("api.crt");
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(List.of(
                keytool,
                "-genkeypair",
                "-noprompt",
                "-alias",
                "api",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "30",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD));
        run(List.of(
                keytool,
                "-exportcert",
                "-rfc",
                "-alias",
                "api",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                certificate.toString()));
        return new ApiTls(keyStore, PASSWORD, certificate);
    }

    /** The system properties that make a Quarkus service listen on HTTPS at {@code port} too. */
    List<String> properties(int port) {
        return List.of(
                "-Dquarkus.http.ssl-port=" + port,
                "-Dquarkus.tls.key-store.p12.path=" + keyStore,
                "-Dquarkus.tls.key-store.p12.password=" + password);
    }

    /** The certificate in PEM, as a kubeconfig's {@code certificate-authority-data} carries it (base64). */
    public String pem() {
        try {
            return Files.readString(certificate);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void run(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (process.waitFor() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
