package com.coreweave.nodepool.deploycheck;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.deploycheck.Manifests.Manifest;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.strimzi.api.kafka.model.kafka.Kafka;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import io.strimzi.api.kafka.model.user.KafkaUser;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Each service runs as Kafka Streams instances are meant to on Kubernetes (DESIGN.md §5): a StatefulSet with its state
 * on volumes, a stable name per pod for interactive queries, its own Kafka login, health probes, a disruption budget
 * and network policies.
 */
class ServicesTest {

    static final List<String> SERVICES = Topics.SERVICES;

    private final List<Manifest> base = Deployment.base();

    @ParameterizedTest
    @FieldSource("SERVICES")
    void runsSeveralInstancesWithTheirStateOnVolumesAndStandbys(String service) {
        StatefulSet set = Manifests.named(base, StatefulSet.class, service);
        Map<String, String> environment = Deployment.environment(set);

        assertThat(set.getSpec().getReplicas()).isGreaterThanOrEqualTo(2);
        assertThat(set.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
        String stateDir = environment.get("KAFKA_STREAMS_STATE_DIR");
        List<String> claims = set.getSpec().getVolumeClaimTemplates().stream()
                .map(c -> c.getMetadata().getName())
                .toList();
        assertThat(Deployment.container(set).getVolumeMounts()).anySatisfy(mount -> {
            assertThat(claims).contains(mount.getName());
            assertThat(stateDir).startsWith(mount.getMountPath() + "/");
        });
        assertThat(environment.get("JDK_JAVA_OPTIONS"))
                .contains("-Dkafka-streams.num.standby.replicas=1", "-Dkafka-streams.topic.min.insync.replicas=2");
        int partitions = Integer.parseInt(environment.get("NODEPOOL_KAFKA_PARTITIONS"));
        assertThat(Manifests.all(base, KafkaTopic.class))
                .allSatisfy(topic -> assertThat(topic.getSpec().getPartitions()).isEqualTo(partitions));
    }

    @ParameterizedTest
    @FieldSource("SERVICES")
    void probesItsHealthOnItsHttpPort(String service) throws IOException {
        StatefulSet set = Manifests.named(base, StatefulSet.class, service);
        Container container = Deployment.container(set);
        ContainerPort http = container.getPorts().get(0);

        assertThat(container.getPorts()).hasSize(1);
        assertThat(http.getContainerPort()).isEqualTo(httpPort(service));
        assertProbe(container.getReadinessProbe(), "/q/health/ready", http);
        assertProbe(container.getLivenessProbe(), "/q/health/live", http);
        assertProbe(container.getStartupProbe(), "/q/health/live", http);
    }

    @ParameterizedTest
    @FieldSource("SERVICES")
    void advertisesItsPodsStableNameInAHeadlessService(String service) {
        StatefulSet set = Manifests.named(base, StatefulSet.class, service);
        String headlessName = set.getSpec().getServiceName();
        Service headless = Manifests.named(base, Service.class, headlessName);
        Map<String, String> podLabels =
                set.getSpec().getTemplate().getMetadata().getLabels();
        List<EnvVar> env = Deployment.container(set).getEnv();

        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(podLabels).containsAllEntriesOf(headless.getSpec().getSelector());
        assertThat(headless.getSpec().getPorts())
                .anySatisfy(port -> assertThat(port.getPort()).isEqualTo(httpPort(service)));
        assertThat(variable(env, "POD_NAME").getValueFrom().getFieldRef().getFieldPath())
                .isEqualTo("metadata.name");
        assertThat(variable(env, "POD_NAMESPACE").getValueFrom().getFieldRef().getFieldPath())
                .isEqualTo("metadata.namespace");
        assertThat(env.indexOf(variable(env, "NODEPOOL_ADVERTISED_HOST")))
                .isGreaterThan(env.indexOf(variable(env, "POD_NAME")))
                .isGreaterThan(env.indexOf(variable(env, "POD_NAMESPACE")));
        assertThat(variable(env, "NODEPOOL_ADVERTISED_HOST").getValue())
                .isEqualTo("$(POD_NAME)." + headlessName + ".$(POD_NAMESPACE).svc");
    }

    @ParameterizedTest
    @FieldSource("SERVICES")
    void logsInToKafkaAsItsOwnPrincipalTrustingTheClusterCa(String service) {
        StatefulSet set = Manifests.named(base, StatefulSet.class, service);
        Container container = Deployment.container(set);
        var login = variable(container.getEnv(), "KAFKA_SASL_JAAS_CONFIG")
                .getValueFrom()
                .getSecretKeyRef();
        String cluster = Manifests.all(base, Kafka.class).get(0).getMetadata().getName();

        assertThat(login.getName()).isEqualTo(service);
        assertThat(login.getKey()).isEqualTo("sasl.jaas.config");
        assertThat(Manifests.named(base, KafkaUser.class, service)).isNotNull();
        String trustStore = Deployment.environment(set).get("KAFKA_SSL_TRUSTSTORE_LOCATION");
        VolumeMount mount = container.getVolumeMounts().stream()
                .filter(m -> trustStore.startsWith(m.getMountPath() + "/"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("nothing mounted at " + trustStore));
        Volume volume = volume(set.getSpec().getTemplate().getSpec(), mount.getName());
        assertThat(volume.getSecret().getSecretName()).isEqualTo(cluster + "-cluster-ca-cert");
        assertThat(volume.getSecret().getItems())
                .anySatisfy(item ->
                        assertThat(mount.getMountPath() + "/" + item.getPath()).isEqualTo(trustStore));
    }

    @ParameterizedTest
    @FieldSource("SERVICES")
    void losesAtMostOneInstanceToAVoluntaryDisruption(String service) {
        StatefulSet set = Manifests.named(base, StatefulSet.class, service);
        List<PodDisruptionBudget> budgets = Manifests.all(base, PodDisruptionBudget.class).stream()
                .filter(b -> selects(b.getSpec().getSelector(), set))
                .toList();

        assertThat(budgets).hasSize(1);
        assertThat(budgets.get(0).getSpec().getMaxUnavailable()).isEqualTo(new IntOrString(1));
    }

    @ParameterizedTest
    @FieldSource("SERVICES")
    void talksOnlyAsItsNetworkPoliciesAllow(String service) {
        StatefulSet set = Manifests.named(base, StatefulSet.class, service);
        List<NetworkPolicy> policies = Manifests.all(base, NetworkPolicy.class).stream()
                .filter(p -> selects(p.getSpec().getPodSelector(), set))
                .toList();

        // A policy of its own besides the shared ones, and one that denies in and out whatever no other allows.
        assertThat(policies)
                .anySatisfy(p -> assertThat(p.getMetadata().getName()).isEqualTo(service));
        assertThat(policies).anySatisfy(p -> {
            assertThat(p.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
            assertThat(p.getSpec().getIngress()).isEmpty();
            assertThat(p.getSpec().getEgress()).isEmpty();
        });
        // Kafka, on the port of the bootstrap address.
        String kafkaPort = Deployment.setting("KAFKA_BOOTSTRAP_SERVERS").replaceAll(".*:", "");
        assertThat(policies.stream().flatMap(p -> p.getSpec().getEgress().stream()))
                .anySatisfy(rule -> {
                    assertThat(rule.getPorts())
                            .anySatisfy(port ->
                                    assertThat(port.getPort()).isEqualTo(new IntOrString(Integer.parseInt(kafkaPort))));
                    assertThat(rule.getTo())
                            .anySatisfy(peer -> assertThat(peer.getPodSelector().getMatchLabels())
                                    .containsEntry("strimzi.io/broker-role", "true"));
                });
    }

    private static void assertProbe(Probe probe, String path, ContainerPort http) {
        assertThat(probe).as(path).isNotNull();
        assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
        IntOrString port = probe.getHttpGet().getPort();
        assertThat(port.getStrVal() != null ? port.getStrVal() : String.valueOf(port.getIntVal()))
                .isIn(http.getName(), String.valueOf(http.getContainerPort()));
    }

    private static boolean selects(LabelSelector selector, StatefulSet set) {
        assertThat(selector.getMatchExpressions()).isEmpty();
        return set.getSpec()
                .getTemplate()
                .getMetadata()
                .getLabels()
                .entrySet()
                .containsAll(selector.getMatchLabels().entrySet());
    }

    private static EnvVar variable(List<EnvVar> env, String name) {
        return env.stream()
                .filter(v -> v.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no variable " + name));
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream()
                .filter(v -> v.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    /** The service's quarkus.http.port, from its application.properties. */
    private static int httpPort(String service) {
        Path properties =
                Deployment.DEPLOY.getParent().resolve(service).resolve("src/main/resources/application.properties");
        try (Reader reader = Files.newBufferedReader(properties)) {
            Properties loaded = new Properties();
            loaded.load(reader);
            return Integer.parseInt(loaded.getProperty("quarkus.http.port"));
        } catch (IOException e) {
            throw new AssertionError("cannot read " + properties, e);
        }
    }
}
