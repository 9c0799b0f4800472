package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import com.coreweave.nodepool.testing.TopicProbe;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

@StackUse.Own
class StackHarnessIT {

    @Test
    void brokerKeepsCommittedRecordsAcrossKill9AndRestart() throws Exception {
        try (Stack stack = Stack.builder().build().start();
                TopicProbe probe = new TopicProbe(stack.bootstrapServers())) {
            try (Admin admin = Admin.create(ClientSecurity.client(stack.bootstrapServers()))) {
                admin.createTopics(Set.of(new NewTopic("harness-check", 3, (short) 1)))
                        .all()
                        .get();
            }
            probe.send("harness-check", "org/pool", "{\"n\":1}", Map.of("source", "harness-it"));
            assertThat(readBack(probe).header("source")).isEqualTo("harness-it");

            stack.kill9Broker();
            stack.restartBroker();

            TopicProbe.Read afterRestart = readBack(probe);
            assertThat(afterRestart.key()).isEqualTo("org/pool");
            assertThat(afterRestart.value()).isEqualTo("{\"n\":1}");
        }
    }

    private static TopicProbe.Read readBack(TopicProbe probe) {
        return probe.awaitRecord("harness-check", record -> "org/pool".equals(record.key()), Duration.ofSeconds(20));
    }
}
