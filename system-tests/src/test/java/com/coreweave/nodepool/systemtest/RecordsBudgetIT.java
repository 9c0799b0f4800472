package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.bench.BrokerWrites;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The records a 1-node pool's create, its scale from 1 to 2 and its delete write to the broker, per topic (changelogs,
 * repartitions, {@code __consumer_offsets} and {@code __transaction_state} included), held to
 * {@code records-budget.txt}: a change that adds a record fails here unless it raises the budget with its reason.
 *
 * <p>Counted as log end offsets grew, so a transaction marker counts as the record it is on the broker. It runs on a
 * stack of its own, measuring from a still broker to a still broker: the shared stack is never still, since what other
 * classes leave behind (pools not valid yet, timers, workloads) keeps its punctuators ticking.
 */
@StackUse.Own
class RecordsBudgetIT {

    static final String ZONE = "US-WEST-04A";
    static final String TYPE = "gd-8xh100ib-i128";
    /** How long no offset may move before and after an operation: longer than a commit interval (1 s). */
    private static final Duration STILL = Duration.ofSeconds(3);

    private static final Duration MAX_WAIT = Duration.ofSeconds(180);
    /** Each operation is measured this many times, on as many pools. */
    private static final int ROUNDS = 2;

    static Stack stack;
    static Admin admin;
    static BrokerWrites writes;
    static RecordsBudget budget;

    @BeforeAll
    static void setUp() throws IOException {
        stack = SystemStack.configured().build().start();
        admin = Admin.create(ClientSecurity.client(stack.bootstrapServers()));
        writes = new BrokerWrites(admin);
        try (InputStream file = RecordsBudgetIT.class.getResourceAsStream("/records-budget.txt")) {
            budget = RecordsBudget.parse(new String(file.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @AfterAll
    static void tearDown() {
        if (admin != null) {
            admin.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void aOneNodePoolsCreateScaleAndDeleteWriteNoMoreRecordsThanTheBudget() throws Exception {
        Map<String, Map<String, Long>> fewest = new TreeMap<>();
        for (int round = 0; round < ROUNDS; round++) {
            SystemStack.quota(stack, "demo", ZONE, TYPE, 2);
            SystemStack.fleet(stack, ZONE, TYPE, 2);
            Pool pool = new Pool("records-budget-" + round, new Api(stack.url(Service.API), SystemStack.token("demo")));
            fewest(fewest, "create", measure("create", () -> {
                assertThat(pool.demo
                                .post(Api.POOLS, Api.pool(pool.name(), TYPE, ZONE, 1))
                                .code())
                        .isEqualTo(201);
                await().atMost(MAX_WAIT).untilAsserted(() -> SpineIT.assertHealthy(pool.get(), 1));
            }));
            fewest(fewest, "scale", measure("scale", () -> {
                assertThat(pool.demo
                                .patch(pool.path(), "{\"spec\":{\"targetNodes\":2}}")
                                .code())
                        .isEqualTo(200);
                await().atMost(MAX_WAIT).untilAsserted(() -> SpineIT.assertHealthy(pool.get(), 2));
            }));
            fewest(fewest, "delete", measure("delete", () -> {
                assertThat(pool.demo().delete(pool.path()).code()).isEqualTo(200);
                await().atMost(MAX_WAIT)
                        .untilAsserted(() -> assertThat(pool.get().code()).isEqualTo(404));
            }));
        }
        List<String> overruns = new ArrayList<>();
        fewest.forEach((operation, written) -> {
            System.out.printf("RecordsBudgetIT: %s, fewest of %d rounds:%n%s", operation, ROUNDS, table(written));
            overruns.addAll(budget.overruns(operation, written));
        });

        assertThat(overruns)
                .as("records over system-tests/src/test/resources/records-budget.txt (raise it only with a reason)")
                .isEmpty();
    }

    /** A pool of org demo on this class's own stack. */
    private record Pool(String name, Api demo) {
        String path() {
            return Api.POOLS + "/" + name;
        }

        Api.Answer get() {
            return demo.get(path());
        }
    }

    /** Keeps the fewest records of each topic over the rounds: another writer's record shows in one round only. */
    private static void fewest(Map<String, Map<String, Long>> fewest, String operation, Map<String, Long> written) {
        Map<String, Long> kept = fewest.get(operation);
        if (kept == null) {
            fewest.put(operation, new TreeMap<>(written));
            return;
        }
        kept.replaceAll((topic, records) -> Math.min(records, written.getOrDefault(topic, 0L)));
    }

    private static String table(Map<String, Long> written) {
        StringBuilder table = new StringBuilder();
        written.forEach((topic, records) -> table.append("  %-58s %4d%n".formatted(topic, records)));
        long total = written.values().stream().mapToLong(Long::longValue).sum();
        return table.append("  %-58s %4d%n".formatted("total", total)).toString();
    }

    /** Runs {@code action} between two still moments of the broker; the records written meanwhile, per topic. */
    private static Map<String, Long> measure(String operation, Runnable action) throws InterruptedException {
        BrokerWrites.Snapshot before = writes.afterStill(STILL, MAX_WAIT);
        action.run();
        BrokerWrites.Snapshot after = writes.afterStill(STILL, MAX_WAIT);
        Map<String, Long> written = new TreeMap<>();
        BrokerWrites.between(before, after).topics().stream()
                .filter(g -> g.offsets() > 0)
                .forEach(g -> written.put(g.topic(), g.offsets()));
        System.out.printf("RecordsBudgetIT: %s wrote:%n%s", operation, table(written));
        return written;
    }
}
