package com.coreweave.nodepool.deploycheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.strimzi.api.kafka.model.nodepool.KafkaNodePool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * A JVM out of heap exits, so that what runs it starts it again, in every place the project starts one; and signed
 * tokens are checked for this deployment's issuer and audience.
 */
class RestartOnFailureTest {

    static final List<String> SERVICES = ServicesTest.SERVICES;
    private static final Path ROOT = Deployment.DEPLOY.resolveSibling(".");
    private static final String EXIT = "-XX:+ExitOnOutOfMemoryError";

    @Test
    void theJvmOptionsOfTheStackTheHarnessAndTheImageExitOnOutOfMemory() throws IOException {
        assertThat(Files.readAllLines(ROOT.resolve("jvm.options"))).contains(EXIT);
        assertThat(Files.readString(ROOT.resolve("Dockerfile"))).contains("@/app/jvm.options");
        assertThat(Files.readString(ROOT.resolve("docker-compose.yml")))
                .contains("exec java @/app/jvm.options")
                .containsPattern("KAFKA_JVM_PERFORMANCE_OPTS: .*" + EXIT.replace("+", "\\+"));
    }

    @Test
    void everyKafkaNodeExitsOnOutOfMemory() {
        for (KafkaNodePool pool : Manifests.all(Deployment.base(), KafkaNodePool.class)) {
            Map<String, String> xx = pool.getSpec().getJvmOptions().getXx();
            assertThat(xx).as(pool.getMetadata().getName()).containsEntry("ExitOnOutOfMemoryError", "true");
        }
    }

    @ParameterizedTest
    @FieldSource("SERVICES")
    void signedTokensNeedThisDeploymentsIssuerAndAudience(String service) {
        Map<String, String> environment =
                Deployment.environment(Manifests.named(Deployment.base(), StatefulSet.class, service));
        assertThat(environment).containsKey("NODEPOOL_AUTH_JWT_PUBLIC_KEY_LOCATION");
        assertThat(environment.get("NODEPOOL_AUTH_JWT_ISSUER")).isNotBlank();
        assertThat(environment.get("NODEPOOL_AUTH_JWT_AUDIENCE")).isEqualTo("nodepool-api");
        assertThat(environment.get("JDK_JAVA_OPTIONS")).doesNotContain("ExitOnOutOfMemoryError=false");
    }
}
