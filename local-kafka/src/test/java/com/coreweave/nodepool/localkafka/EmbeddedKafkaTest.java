package com.coreweave.nodepool.localkafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaTest {

    @Test
    void readCommittedConsumerSeesCommittedButNotAbortedTransactions() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            TestClients.createTopic(kafka.bootstrapServers(), "orders");
            Map<String, Object> config = Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    kafka.bootstrapServers(),
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "embedded-kafka-test");
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "k", "aborted"));
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "k", "committed"));
                producer.commitTransaction();
            }

            assertEquals(List.of("committed"), TestClients.readCommitted(kafka.bootstrapServers(), "orders", 1));
        }
    }

    @Test
    void sharedBrokerIsOnePerJvmAndSurvivesClose() throws Exception {
        EmbeddedKafka shared = EmbeddedKafka.shared();
        shared.close();

        assertSame(shared, EmbeddedKafka.shared());
        TestClients.createTopic(shared.bootstrapServers(), "still-up");
    }
}
