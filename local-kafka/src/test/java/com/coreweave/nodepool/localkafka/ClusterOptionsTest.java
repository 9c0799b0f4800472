package com.coreweave.nodepool.localkafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** One node of a local cluster (./stack up --cluster): its command line and the settings it runs with. */
class ClusterOptionsTest {

    private static final String VOTERS = "1@localhost:9093,2@localhost:9103,3@localhost:9113";
    private static final String CLUSTER_ID = Uuid.randomUuid().toString();

    @Test
    void aNodeOfThreeKnowsItsVotersAndItsClusterId() {
        LocalKafkaOptions node = LocalKafkaOptions.parse(
                "--data-dir", "d", "--node-id", "2", "--voters", VOTERS, "--cluster-id", CLUSTER_ID);

        assertThat(node.nodes()).isEqualTo(3);
        assertThat(node.nodeId()).isEqualTo(2);
        assertThat(node.clusterId()).isEqualTo(CLUSTER_ID);
        assertThat(LocalKafkaOptions.parse("--data-dir", "d").nodes()).isEqualTo(1);
    }

    @Test
    void aClusterNeedsItsIdThisNodeAmongItsVotersAndWellFormedVoters() {
        assertThatThrownBy(() -> LocalKafkaOptions.parse("--data-dir", "d", "--node-id", "2", "--voters", VOTERS))
                .hasMessageContaining("--voters needs --cluster-id");
        assertThatThrownBy(() -> LocalKafkaOptions.parse(
                        "--data-dir", "d", "--node-id", "4", "--voters", VOTERS, "--cluster-id", CLUSTER_ID))
                .hasMessageContaining("--node-id 4 is not one of --voters");
        assertThatThrownBy(() -> LocalKafkaOptions.parse(
                        "--data-dir", "d", "--voters", "1@localhost:9093,localhost:9103", "--cluster-id", CLUSTER_ID))
                .hasMessageContaining("not 'localhost:9103'");
        assertThatThrownBy(() -> LocalKafkaOptions.parse(
                        "--data-dir", "d", "--voters", "1@localhost:9093", "--cluster-id", "not-a-cluster-id"))
                .hasMessageContaining("must be a Kafka cluster id");
        assertThatThrownBy(() -> LocalKafkaOptions.parse("--data-dir", "d", "--cluster-id", CLUSTER_ID))
                .hasMessageContaining("give --voters too");
    }

    @Test
    void threeNodesReplicateEveryTopicThreeTimesAndNeverElectAReplicaThatFellBehind() {
        assertThat(BrokerSettings.forCluster(3))
                .containsEntry("default.replication.factor", "3")
                .containsEntry("offsets.topic.replication.factor", "3")
                .containsEntry("transaction.state.log.replication.factor", "3")
                .containsEntry("min.insync.replicas", "2")
                .containsEntry("transaction.state.log.min.isr", "2")
                .containsEntry("unclean.leader.election.enable", "false");
        assertThat(BrokerSettings.forCluster(1)).containsEntry("offsets.topic.replication.factor", "1");
    }
}
