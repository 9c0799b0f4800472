package com.coreweave.nodepool.deploycheck;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard is JSON Grafana can import, and reads only metrics deploy/README.md lists, where each says
 * where it comes from and whether a service exposes it yet.
 */
class GrafanaDashboardTest {

    /** A metric in a PromQL expression: every selector of the dashboard has braces. */
    private static final Pattern SELECTOR = Pattern.compile("\\b([a-z_][a-z0-9_]*)\\{");

    /** A metric in the README's table: a first cell of back-quoted names. */
    private static final Pattern LISTED = Pattern.compile("`([a-z_][a-z0-9_]*)`");

    @Test
    void everyPanelQueriesOnlyMetricsTheReadmeLists() throws IOException {
        JsonNode dashboard = JsonMapper.builder()
                .build()
                .readTree(Files.readString(Deployment.DEPLOY.resolve("grafana/nodepool.json")));
        Set<String> queried = new TreeSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty();
            for (JsonNode target : panel.path("targets")) {
                Matcher metrics = SELECTOR.matcher(target.path("expr").asText());
                while (metrics.find()) {
                    queried.add(metrics.group(1));
                }
            }
        }

        assertThat(dashboard.path("uid").asText()).isNotEmpty();
        assertThat(queried).contains("nodepool_dead_letters_total", "kafka_consumer_fetch_manager_records_lag");
        assertThat(listedInReadme()).containsAll(queried);
    }

    private static Set<String> listedInReadme() throws IOException {
        Set<String> listed = new TreeSet<>();
        String readme = Files.readString(Deployment.DEPLOY.resolve("README.md"));
        String metrics = readme.substring(readme.indexOf("| metric | from | checked how |"));
        for (String line : metrics.lines().takeWhile(l -> l.startsWith("|")).toList()) {
            Matcher names = LISTED.matcher(line.split("\\|")[1]);
            while (names.find()) {
                listed.add(names.group(1));
            }
        }
        return listed;
    }
}
