package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.Service;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Node configurations through all five services: an operator's upstream release shows as the pool's pending
 * configuration, the user upgrades to it, reconfigure-reboots the outdated nodes into it, and rolls back; each step
 * visible in the status and the pool's events as reference 000 names them.
 */
@StackUse.Shares
class NodeConfigurationIT {

    static final String ZONE = "US-EAST-06A";
    static final String TYPE = "gd-8xh200ib-i128";
    static final String POOL = "config-pool";
    static final Duration WAIT = Duration.ofSeconds(60);
    static OnePool pool;

    @BeforeAll
    static void demoData() {
        pool = OnePool.in(POOL, ZONE, TYPE, 4);
    }

    static String reason(Api.Answer answer, String type) {
        JsonNode c = answer.condition(type);
        return c.path("reason").asText() + "/" + c.path("status").asText();
    }

    static List<String> nodeProfiles() {
        return pool.nodes().stream()
                .map(n -> n.at("/status/nodeProfile").asText())
                .toList();
    }

    static void post(String action, String body) {
        var answer = pool.demo.post(pool.path() + "/" + action, body);
        assertThat(answer.code()).as("%s answered %s", action, answer.body()).isEqualTo(202);
    }

    @Test
    void aReleaseIsPendingThenUpgradedRebootedIntoAndRolledBack() {
        var created = pool.demo.post(Api.POOLS, """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool","metadata":{"name":"%s"},
         "spec":{"instanceType":"%s","targetNodes":2,"region":"%s","image":{"releaseTrain":"latest"}}}""".formatted(POOL, TYPE, ZONE));
        assertThat(created.code()).as("create answered %s", created.body()).isEqualTo(201);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(reason(pool.get(), "AtTarget")).isEqualTo("TargetMet/True"));
        Api.Answer healthy = pool.get();
        String first = healthy.text("/status/nodeProfile");
        assertThat(first).matches("np-[0-9a-f]{8}");
        assertThat(healthy.body().at("/status/pendingNodeConfiguration").isMissingNode())
                .isTrue();
        assertThat(healthy.body()
                        .at("/status/nodeConfigurationRevisions/0/nodeProfile")
                        .asText())
                .isEqualTo(first);
        assertThat(healthy.number("/status/nodeConfigurationRevisions/0/activeNodes"))
                .isEqualTo(2);

        // An operator publishes a release of the pool's train: OnSpecUpdate shows it as pending, nothing changes yet.
        var released = SystemStack.admin(Service.PROVISIONER)
                .post(
                        "/admin/node-releases",
                        "{\"releaseTrain\":\"latest\",\"version\":\"2027.2.0\",\"summary\":[\"Kubernetes v1.33.1\"]}");
        assertThat(released.code()).as("release answered %s", released.body()).isEqualTo(202);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pool.get()
                                .body()
                                .at("/status/pendingNodeConfiguration/summary")
                                .toString())
                        .contains("release train latest: 2027.2.0", "Kubernetes v1.33.1"));
        String second = pool.get().text("/status/pendingNodeConfiguration/nodeProfile");
        assertThat(pool.get().text("/status/nodeProfile")).isEqualTo(first);
        assertThat(pool.events("CWPendingNodeConfig")).isNotEmpty();

        // The upgrade makes it active; the running nodes are now outdated.
        post("upgrade", "{}");
        await().atMost(WAIT).untilAsserted(() -> {
            Api.Answer upgraded = pool.get();
            assertThat(upgraded.text("/status/nodeProfile")).isEqualTo(second);
            assertThat(upgraded.body().at("/status/pendingNodeConfiguration").isMissingNode())
                    .isTrue();
            assertThat(reason(upgraded, "NodeReconfigurationRequired")).isEqualTo("StagedNodeConfig/True");
        });
        assertThat(pool.events("CWManualUpgradeTrigger")).isNotEmpty();
        assertThat(pool.events("CWNodePoolNodeConfigUpdated")).isNotEmpty();
        assertThat(pool.events("CWNodeConfigStaged")).isNotEmpty();

        // A reconfigure reboot brings the idle nodes into it.
        post("reconfigure", "");
        await().atMost(WAIT).untilAsserted(() -> {
            Api.Answer rebooted = pool.get();
            assertThat(nodeProfiles()).containsExactly(second, second);
            assertThat(reason(rebooted, "NodeReconfigurationRequired")).isEqualTo("AllNodesUpToDate/False");
            assertThat(reason(rebooted, "AtTarget")).isEqualTo("TargetMet/True");
            assertThat(rebooted.body().at("/status/nodeConfigurationRevisions").findValuesAsText("nodeProfile"))
                    .containsExactly(first, second);
            assertThat(rebooted.number("/status/nodeConfigurationRevisions/1/activeNodes"))
                    .isEqualTo(2);
        });
        assertThat(pool.events("CWReconfigureRebooted")).hasSize(2);

        // Nothing is pending now, and an unknown revision cannot be rolled back to: both are warnings, nothing changes.
        post("upgrade", "");
        post("rollback", "{\"nodeProfile\":\"np-00000000\"}");
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(pool.events("CWNodePoolNoPendingConfiguration"))
                    .singleElement()
                    .asString()
                    .startsWith("Warning");
            assertThat(pool.events("CWNodePoolNodeConfigRollbackFailed"))
                    .singleElement()
                    .asString()
                    .contains("np-00000000");
        });

        // Rolling back to the first configuration makes it active again.
        post("rollback", "{\"nodeProfile\":\"" + first + "\"}");
        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(pool.get().text("/status/nodeProfile")).isEqualTo(first));
        assertThat(pool.events("CWManualRollbackTrigger")).isNotEmpty();
    }
}
