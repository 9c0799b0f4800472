package com.coreweave.nodepool.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.localkafka.EmbeddedKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What a test sees through the probe of a real broker: records with their headers, and a tail that reads on. */
class TopicProbeTest {

    static final Duration WAIT = Duration.ofSeconds(30);
    static String bootstrap;

    @BeforeAll
    static void broker() {
        bootstrap = EmbeddedKafka.shared().bootstrapServers();
    }

    static String topic(int partitions) throws Exception {
        String topic = "probe-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
        }
        return topic;
    }

    @Test
    void readsBackWhatItSentWithHeadersAndWhereItWent() throws Exception {
        String topic = topic(2);
        try (TopicProbe probe = new TopicProbe(bootstrap)) {
            probe.send(topic, 1, "org/pool", "{\"n\":1}", Map.of("source", "probe-test"));
            probe.send(topic, "org/other", null);

            List<TopicProbe.Read> read = probe.readAll(topic);

            assertThat(read).extracting(TopicProbe.Read::key).containsExactlyInAnyOrder("org/pool", "org/other");
            TopicProbe.Read first = probe.awaitRecord(topic, r -> r.key().equals("org/pool"), WAIT);
            assertThat(first.partition()).isEqualTo(1);
            assertThat(first.header("source")).isEqualTo("probe-test");
            assertThat(first.header("absent")).isNull();
            assertThat(first.topic()).isEqualTo(topic);
        }
    }

    @Test
    void aTailReadsOnlyWhatArrivedSinceAndKeepsEachPartitionInOrder() throws Exception {
        String topic = topic(2);
        try (TopicProbe probe = new TopicProbe(bootstrap);
                TopicProbe.Tail<Map> tail =
                        TopicProbe.Tail.of(bootstrap, topic, Map.class, key -> key.startsWith("ours"))) {
            probe.sendToPartition(topic, 0, "ours/a", "{\"n\":1}");
            probe.sendToPartition(topic, 0, "theirs/b", "{\"n\":2}");
            assertThat(tail.catchUp(WAIT).size()).isEqualTo(1);

            probe.sendToPartition(topic, 1, "ours/c", "{\"n\":3}");
            probe.sendToPartition(topic, 0, "ours/a", null);

            tail.catchUp(WAIT);
            assertThat(tail.partitionCount()).isEqualTo(2);
            assertThat(tail.partition(0)).extracting(TopicProbe.Kept::tombstone).containsExactly(false, true);
            assertThat(tail.partition(1))
                    .singleElement()
                    .satisfies(k -> assertThat(k.value()).containsEntry("n", 3));
        }
    }

    @Test
    void waitingForARecordThatNeverComesFailsShowingWhatWasRead() throws Exception {
        String topic = topic(1);
        try (TopicProbe probe = new TopicProbe(bootstrap)) {
            probe.send(topic, "org/pool", "something else");

            assertThatThrownBy(() -> probe.awaitRecord(topic, r -> "wanted".equals(r.value()), Duration.ofSeconds(2)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("something else");
        }
    }
}
