package com.coreweave.nodepool.systemtest.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * kcat, as platform teams run it, with a librdkafka that can log in to Kafka 4 with SCRAM. librdkafka before 2.6.1
 * sends a SCRAM nonce Kafka 4 refuses (confluentinc/librdkafka#4895): Debian 12's kcat links 2.0.2. Where the kcat on
 * the PATH is that old, the librdkafka {@code scripts/librdkafka.sh} builds ({@code $NODEPOOL_LIBRDKAFKA}, else
 * {@code ~/.cache/nodepool/librdkafka}) is put under it, as {@code scripts/kcat} does for people.
 */
public final class Kcat {

    private static final Pattern VERSION = Pattern.compile("librdkafka (\\d+)\\.(\\d+)\\.(\\d+)");

    private final Path program;
    private final Map<String, String> environment;

    private Kcat(Path program, Map<String, String> environment) {
        this.program = program;
        this.environment = environment;
    }

    /** A kcat that can log in with SCRAM; skips the calling test (fails it in CI) when there is none. */
    public static Kcat require() {
        Path program = ExternalClient.require("kcat", "apt-get install kcat");
        String version = run(List.of(program.toString(), "-V"), Map.of(), "").output();
        if (scramWorks(version)) {
            return new Kcat(program, Map.of());
        }
        Path library = librdkafka();
        if (Files.isRegularFile(library.resolve("lib/librdkafka.so.1"))) {
            return new Kcat(
                    program, Map.of("LD_LIBRARY_PATH", library.resolve("lib").toString()));
        }
        String missing = program + " links a librdkafka older than 2.6.1, which Kafka 4 refuses for SCRAM, and "
                + library + " has no newer one: run scripts/librdkafka.sh";
        if ("1".equals(System.getenv(ExternalClient.REQUIRE))) {
            throw new AssertionError(missing);
        }
        Assumptions.abort(missing + ": skipped");
        throw new IllegalStateException("unreachable");
    }

    static boolean scramWorks(String versionOutput) {
        Matcher found = VERSION.matcher(versionOutput);
        if (!found.find()) {
            return false;
        }
        int major = Integer.parseInt(found.group(1));
        int minor = Integer.parseInt(found.group(2));
        int patch = Integer.parseInt(found.group(3));
        return major > 2 || (major == 2 && (minor > 6 || (minor == 6 && patch >= 1)));
    }

    private static Path librdkafka() {
        String configured = System.getenv("NODEPOOL_LIBRDKAFKA");
        return configured != null && !configured.isBlank()
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "nodepool", "librdkafka");
    }

    /** What one kcat run printed (standard output and error together) and its exit code. */
    public record Result(int exitCode, String output) {}

    /** Runs kcat with {@code arguments}, {@code input} on its standard input; waits up to 30 s. */
    public Result run(List<String> arguments, String input) {
        List<String> command = new ArrayList<>();
        command.add(program.toString());
        command.addAll(arguments);
        return run(command, environment, input);
    }

    private static Result run(List<String> command, Map<String, String> environment, String input) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            Process process = builder.start();
            process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().close();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("kcat " + command + " did not finish within 30 s");
            }
            return new Result(
                    process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AssertionError("cannot run kcat", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
