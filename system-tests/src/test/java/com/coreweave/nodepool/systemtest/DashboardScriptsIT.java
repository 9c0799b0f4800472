package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.systemtest.harness.ExternalClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's own logic (reading the live streams, condition colours, countdowns) under Node's test runner: the
 * assets are plain ES modules, so their unit tests (dashboard/src/test/js) need no browser and no npm package.
 */
@StackUse.Own
class DashboardScriptsIT {

    @Test
    void theDashboardsScriptsPassTheirUnitTests() throws IOException, InterruptedException {
        Path node = ExternalClient.require("node", "apt-get install nodejs");
        Path dashboard = Path.of(System.getProperty("stack.project-root", "..")).resolve("dashboard");
        List<String> command = new ArrayList<>(List.of(node.toString(), "--test"));
        try (Stream<Path> files = Files.list(dashboard.resolve("src/test/js"))) {
            files.filter(f -> f.toString().endsWith(".test.js")).sorted().forEach(f -> command.add(f.toString()));
        }
        assertThat(command).hasSizeGreaterThan(2);

        Process run = new ProcessBuilder(command)
                .directory(dashboard.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(run.exitValue()).as(output).isZero();
        assertThat(output).containsPattern("# pass [1-9]").contains("# fail 0");
    }
}
