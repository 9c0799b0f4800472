package com.coreweave.nodepool.deploycheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.deploycheck.Manifests.Manifest;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every manifest is what the API server and Strimzi would take: each document of every file under deploy/kubernetes
 * reads into its kind's model with nothing unknown, mistyped or given twice. The tests below prove the reading refuses
 * such mistakes.
 */
class ManifestModelTest {

    private static final String STATEFUL_SET = """
            apiVersion: apps/v1
            kind: StatefulSet
            metadata:
              name: quota-service
            spec:
              %s: 2
              serviceName: quota-service-pods
              selector:
                matchLabels:
                  app.kubernetes.io/name: quota-service
              template:
                metadata:
                  labels:
                    app.kubernetes.io/name: quota-service
                spec:
                  containers:
                    - name: quota-service
                      image: ghcr.io/example/quota-service:0.1.0
                      %s: IfNotPresent
            """;

    @Test
    void everyDocumentOfTheDeploymentReadsIntoItsKindsModel() {
        List<Manifest> manifests = Manifests.under(Deployment.KUBERNETES);

        assertThat(manifests).extracting(Manifest::kind).contains("Kafka", "KafkaTopic", "StatefulSet");
        assertThat(manifests)
                .allSatisfy(m -> assertThat(m.object() != null || m.kind().equals("Kustomization"))
                        .as(m.toString())
                        .isTrue());
    }

    @Test
    void aCorrectManifestReads() throws Exception {
        List<Manifest> read = read(STATEFUL_SET.formatted("replicas", "imagePullPolicy"));

        assertThat(((StatefulSet) read.get(0).object()).getSpec().getReplicas()).isEqualTo(2);
    }

    @Test
    void aMisspeltFieldIsRefused() {
        assertThatThrownBy(() -> read(STATEFUL_SET.formatted("replcas", "imagePullPolicy")))
                .hasMessageContaining("replcas");
    }

    @Test
    void aMisspeltFieldDeepInAPodTemplateIsRefused() {
        assertThatThrownBy(() -> read(STATEFUL_SET.formatted("replicas", "imagePulPolicy")))
                .hasMessageContaining("imagePulPolicy");
    }

    @Test
    void aMisspeltFieldOfAStrimziResourceIsRefused() throws Exception {
        String topic = """
                apiVersion: kafka.strimzi.io/v1beta2
                kind: KafkaTopic
                metadata:
                  name: nodepool-requested
                spec:
                  %s: 12
                  replicas: 3
                """;

        assertThat(((KafkaTopic) read(topic.formatted("partitions")).get(0).object())
                        .getSpec()
                        .getPartitions())
                .isEqualTo(12);
        assertThatThrownBy(() -> read(topic.formatted("partitons"))).hasMessageContaining("partitons");
    }

    @Test
    void aMisspeltFieldOfAnAclRuleIsRefused() {
        String user = """
                apiVersion: kafka.strimzi.io/v1beta2
                kind: KafkaUser
                metadata:
                  name: monitoring
                spec:
                  authorization:
                    type: simple
                    acls:
                      - resource:
                          type: topic
                          name: node-alert-raised
                          patternTyp: literal
                        operations: [Write]
                """;

        assertThatThrownBy(() -> read(user)).hasMessageContaining("patternTyp");
    }

    @Test
    void aNumberWrittenAsTextIsRefused() {
        String quoted = STATEFUL_SET.formatted("replicas", "imagePullPolicy").replace("replicas: 2", "replicas: \"2\"");

        assertThatThrownBy(() -> read(quoted)).hasMessageContaining("replicas");
    }

    @Test
    void aKeyGivenTwiceIsRefused() {
        String twice = STATEFUL_SET
                .formatted("replicas", "imagePullPolicy")
                .replace("  replicas: 2\n", "  replicas: 2\n  replicas: 3\n");

        assertThatThrownBy(() -> read(twice)).hasMessageContaining("replicas");
    }

    @Test
    void aKindWithoutAModelIsRefused() {
        String ingress = """
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata:
                  name: nodepool-api
                """;

        assertThatThrownBy(() -> read(ingress)).hasMessageContaining("no model for networking.k8s.io/v1/Ingress");
    }

    private static List<Manifest> read(String yaml) throws Exception {
        return Manifests.read(Path.of("inline.yaml"), yaml);
    }
}
