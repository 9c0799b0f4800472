package com.coreweave.nodepool.systemtest.harness;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * A program nobody on the team wrote (kcat, kubectl, chromium, node) that a system test drives as its users do. On a
 * developer's machine without it the test is skipped and says what to install; where {@code NODEPOOL_REQUIRE_CLIENTS=1}
 * is set (CI, which installs them) a missing one fails the test instead.
 */
public final class ExternalClient {

    public static final String REQUIRE = "NODEPOOL_REQUIRE_CLIENTS";

    private ExternalClient() {}

    /** The path of {@code program} on the PATH; skips the calling test (or fails it in CI) when there is none. */
    public static Path require(String program, String howToInstall) {
        Optional<Path> found = find(program);
        if (found.isPresent()) {
            return found.get();
        }
        String missing = program + " is not on the PATH (" + howToInstall + ")";
        if ("1".equals(System.getenv(REQUIRE))) {
            throw new AssertionError(missing + ", and " + REQUIRE + "=1 says the clients must be there");
        }
        Assumptions.abort(missing + ": skipped");
        throw new IllegalStateException("unreachable");
    }

    public static Optional<Path> find(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
