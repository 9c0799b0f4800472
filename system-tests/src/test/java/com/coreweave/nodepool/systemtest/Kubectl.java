package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.ApiTls;
import com.coreweave.nodepool.systemtest.harness.ExternalClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real kubectl, run as a user runs it: with a kubeconfig that names the API's HTTPS address, trusts its certificate
 * (or the CA that signed it) and holds one org's bearer token ({@link #of}) or client certificate
 * ({@link #withCertificate}), and its own discovery cache.
 */
final class Kubectl {

    /** What one kubectl run printed and how it ended. */
    record Run(int exit, String out, String err) {

        Run ok() {
            if (exit != 0) {
                throw new AssertionError("kubectl failed (" + exit + "): " + err + out);
            }
            return this;
        }
    }

    private static final long TIMEOUT_SECONDS = 180;

    private final Path program;
    private final Path kubeconfig;
    private final Path cache;

    private Kubectl(Path program, Path kubeconfig, Path cache) {
        this.program = program;
        this.kubeconfig = kubeconfig;
        this.cache = cache;
    }

    /**
     * kubectl for {@code token}'s org against {@code server}, trusting {@code pem}; skipped where kubectl is missing.
     */
    static Kubectl of(URI server, String pem, String token, Path dir) {
        return configured(server, pem, token.replace("-token", ""), "token: " + token, dir);
    }

    /**
     * kubectl for the org of {@code identity}'s client certificate (signed by the CA {@code caPem}, which signed the
     * API's too) against {@code server}; skipped where kubectl is missing.
     */
    static Kubectl withCertificate(URI server, String caPem, ApiTls.ClientIdentity identity, Path dir) {
        String user = identity.organization().replaceAll("[^A-Za-z0-9_.-]", "_") + "-certificate";
        String credentials = "client-certificate-data: " + base64(identity.certificatePem()) + "\n    client-key-data: "
                + base64(identity.keyPem());
        return configured(server, caPem, user, credentials, dir);
    }

    /** kubectl with a kubeconfig of one cluster ({@code server}, trusting {@code caPem}) and one user. */
    private static Kubectl configured(URI server, String caPem, String user, String credentials, Path dir) {
        Path program = ExternalClient.require("kubectl", "apt-get install kubernetes-client");
        String config = """
        apiVersion: v1
        kind: Config
        clusters:
        - name: nodepool
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: %s
          user:
            %s
        contexts:
        - name: %s
          context: {cluster: nodepool, user: %s}
        current-context: %s
        """.formatted(server, base64(caPem), user, credentials, user, user, user);
        try {
            Path file = dir.resolve("kubeconfig-" + user);
            Files.writeString(file, config);
            return new Kubectl(program, file, dir.resolve("cache-" + user));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    Run run(String... args) {
        return runWith(null, args);
    }

    /** Runs kubectl with {@code stdin} (a manifest for {@code -f -}) and waits for it to end. */
    Run runWith(String stdin, String... args) {
        try {
            Process process = start(args);
            try (var in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            var out = process.getInputStream().readAllBytes();
            var err = process.getErrorStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(
                        "kubectl " + String.join(" ", args) + " did not end within " + TIMEOUT_SECONDS + "s");
            }
            return new Run(
                    process.exitValue(),
                    new String(out, StandardCharsets.UTF_8),
                    new String(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts a long-running kubectl (a watch) whose output goes to {@code out}; the caller stops it. */
    Process background(Path out, String... args) {
        try {
            List<String> command = command(args);
            return new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Process start(String... args) throws IOException {
        return new ProcessBuilder(command(args)).start();
    }

    private List<String> command(String... args) {
        List<String> command = new ArrayList<>(
                List.of(program.toString(), "--kubeconfig", kubeconfig.toString(), "--cache-dir", cache.toString()));
        command.addAll(List.of(args));
        return command;
    }
}
