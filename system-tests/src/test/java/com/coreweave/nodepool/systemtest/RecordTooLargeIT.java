package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.schema.topics.DeadLetters;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import com.coreweave.nodepool.testing.ClientSecurity;
import com.coreweave.nodepool.testing.TopicProbe;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** A provisioner that cannot write a record, on a stack of its own so that its wedge touches no other test. */
@StackUse.Own
class RecordTooLargeIT {

    private static final Duration WAIT = Duration.ofSeconds(180);

    /**
     * On a stack of its own whose provisioner may write records of at most 16 KiB: a change of a 120-node pool records
     * more events than fit one such record, which is dead-lettered (RecordTooLarge) while the pool still reaches its
     * target and the next pool is provisioned too. Then an operator deletes the provisioner's dead-letter topic by
     * mistake: the next record it cannot write has nowhere to go, its task stops making progress, and readiness says
     * DOWN until the topic is back.
     */
    @Test
    void aRecordTooLargeToWriteIsDeadLetteredAndAWedgedTaskTakesReadinessDown() throws Exception {
        String zone = "US-WEST-04A";
        String type = "gd-8xh100ib-i128";
        try (Stack small = Stack.builder()
                        .withServices(Service.API, Service.QUOTA, Service.CAPACITY, Service.PROVISIONER)
                        .withProperty(Service.PROVISIONER, "kafka-streams.producer.max.request.size", "16384")
                        .withProperty(Service.PROVISIONER, "kafka-streams.producer.max.block.ms", "180000")
                        .withProperty(Service.PROVISIONER, "provisioner.boot-time", "1s")
                        .withProperty(Service.PROVISIONER, "provisioner.boot-failure-rate", "0")
                        .withProperty(Service.PROVISIONER, "provisioner.timer-interval", "200ms")
                        .withProperty(Service.PROVISIONER, "nodepool.health.stall-timeout", "10s")
                        .build()
                        .start();
                TopicProbe kafka = new TopicProbe(small.bootstrapServers());
                Admin admin = Admin.create(ClientSecurity.client(small.bootstrapServers()))) {
            SystemStack.quota(small, "demo", zone, type, 400);
            SystemStack.fleet(small, zone, type, 400);
            Api demo = new Api(small.url(Service.API), "demo-token");
            String dlq = "provisioner-service-dlq";

            assertThat(demo.post(Api.POOLS, Api.pool("big-events-1", type, zone, 120))
                            .code())
                    .isEqualTo(201);
            var dead = kafka.awaitRecord(
                    dlq, r -> "RecordTooLarge".equals(r.header(DeadLetters.ERROR)), Duration.ofSeconds(120));
            assertThat(dead.header("dlq.target.topic")).isEqualTo("nodepool-event-recorded");
            assertThat(dead.key()).isEqualTo("demo/big-events-1");
            demo.awaitTargetMet("big-events-1", WAIT);
            assertThat(demo.post(Api.POOLS, Api.pool("after-big-events", type, zone, 1))
                            .code())
                    .isEqualTo(201);
            demo.awaitTargetMet("after-big-events", WAIT);
            assertThat(small.ready(Service.PROVISIONER)).isTrue();

            admin.deleteTopics(List.of(dlq)).all().get();
            assertThat(demo.post(Api.POOLS, Api.pool("big-events-2", type, zone, 120))
                            .code())
                    .isEqualTo(201);
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> !small.ready(Service.PROVISIONER));
            assertThat(small.ready(Service.API))
                    .as("the other services are not the provisioner's wedge")
                    .isTrue();

            admin.createTopics(List.of(new NewTopic(dlq, 3, (short) 1))).all().get();
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> small.ready(Service.PROVISIONER));
            demo.awaitTargetMet("big-events-2", WAIT);
        }
    }
}
