package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.Service;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 3: with two instances of the api-service, each holds only its share of the pools' partitions, yet each answers
 * GET and list for every pool (interactive queries find the instance that holds the key).
 */
@StackUse.Disrupts
class TwoApiInstancesIT {

    /** The second instance goes again: the classes after share a stack of one instance per service. */
    @AfterAll
    static void stopTheSecondInstance() {
        SystemStack.forDisruption().stopExtraInstances();
        await().atMost(Duration.ofSeconds(120))
                .until(() -> SystemStack.forDisruption().ready(Service.API));
    }

    @Test
    void everyInstanceAnswersForEveryPool() {
        SystemStack.quota(SystemStack.forDisruption(), "demo", "US-EAST-04A", "gd-8xa100-i128", 16);
        URI second = SystemStack.forDisruption().startExtraInstance(Service.API, "nodepool-api-service-2");
        Api first = SystemStack.api(SystemStack.forDisruption(), "demo-token");
        Api other = new Api(second, "demo-token");

        List<String> names = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String name = "two-instances-" + i;
            names.add(name);
            Api writer = i % 2 == 0 ? first : other;
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> writer.post(Api.POOLS, Api.pool(name, "gd-8xa100-i128", 0))
                                    .code()
                            == 201);
        }
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    for (String name : names) {
                        var a = first.get(Api.POOLS + "/" + name);
                        var b = other.get(Api.POOLS + "/" + name);
                        assertThat(a.code())
                                .as("%s from the first instance", name)
                                .isEqualTo(200);
                        assertThat(b.code())
                                .as("%s from the second instance", name)
                                .isEqualTo(200);
                        assertThat(b.text("/metadata/uid")).isEqualTo(a.text("/metadata/uid"));
                    }
                    for (Api api : List.of(first, other)) {
                        List<String> listed = new ArrayList<>();
                        api.get(Api.POOLS)
                                .body()
                                .path("items")
                                .forEach(p -> listed.add(p.at("/metadata/name").asText()));
                        assertThat(listed).containsAll(names);
                        // Events are kept with each pool's view: both the pool's own list and the namespace's come from
                        // every
                        // instance's share.
                        for (String name : names) {
                            assertThat(reasons(api.get(Api.POOLS + "/" + name + "/events")
                                            .body()))
                                    .as("%s's events", name)
                                    .contains("CWNodePoolCreated");
                        }
                        List<String> involved = new ArrayList<>();
                        api.get("/api/v1/namespaces/default/events")
                                .body()
                                .path("items")
                                .forEach(e -> involved.add(
                                        e.at("/involvedObject/name").asText()));
                        assertThat(involved).containsAll(names);
                    }
                });
    }

    private static List<String> reasons(JsonNode eventList) {
        List<String> reasons = new ArrayList<>();
        eventList.path("items").forEach(e -> reasons.add(e.path("reason").asText()));
        return reasons;
    }
}
