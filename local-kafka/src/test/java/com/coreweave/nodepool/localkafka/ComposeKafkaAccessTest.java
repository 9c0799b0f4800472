package com.coreweave.nodepool.localkafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.topics.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose's broker gets the ACLs and org quotas {@link KafkaAccess} derives from the registry: the compose
 * script writes them out for the apache/kafka image's tools, and its dry run must list exactly those.
 */
class ComposeKafkaAccessTest {

    private static final List<String> OTHERS = List.of(
            KafkaAccess.tenant("demo"),
            KafkaAccess.tenant("other"),
            KafkaAccess.OPERATOR,
            KafkaAccess.MONITORING,
            KafkaAccess.ADMIN);

    @Test
    void theComposeBrokerGetsTheAclsAndQuotasTheRegistryGives(@TempDir Path secrets) throws Exception {
        List<String> principals =
                Stream.concat(Topics.SERVICES.stream(), OTHERS.stream()).toList();
        Files.writeString(
                secrets.resolve("principals.properties"),
                principals.stream().map(p -> p + "=secret\n").collect(Collectors.joining()));
        List<List<String>> calls = dryRun(secrets);

        Set<AclBinding> expected = new HashSet<>();
        principals.forEach(p -> expected.addAll(KafkaAccess.forPrincipal(p)));
        Set<AclBinding> written = new HashSet<>();
        calls.stream().filter(c -> c.get(0).equals("kafka-acls.sh")).forEach(c -> written.addAll(acls(c)));
        assertThat(written).as("the script's ACLs").containsExactlyInAnyOrderElementsOf(expected);

        String quotas = KafkaAccess.TENANT_QUOTAS.entrySet().stream()
                .map(e -> e.getKey() + "=" + Math.round(e.getValue()))
                .sorted()
                .collect(Collectors.joining(","));
        assertThat(calls.stream()
                        .filter(c -> c.contains(KafkaAccess.tenant("demo")) && c.contains("users"))
                        .map(c -> c.get(c.size() - 1))
                        .filter(config -> !config.startsWith("SCRAM"))
                        .map(config -> Arrays.stream(config.split(",")).sorted().collect(Collectors.joining(",")))
                        .toList())
                .as("an org's client quotas")
                .containsExactly(quotas);
    }

    private static List<List<String>> dryRun(Path secrets) throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("user.dir"))
                .resolveSibling("scripts")
                .resolve("compose-kafka-access.sh");
        ProcessBuilder builder = new ProcessBuilder("bash", script.toString(), "access", "--dry-run");
        builder.environment().put("KAFKA_ACCESS_SECRETS_DIR", secrets.toString());
        builder.redirectErrorStream(true);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out.lines()
                .filter(l -> l.startsWith("kafka-"))
                .map(l -> List.of(l.replace("\\", "").split(" ")))
                .toList();
    }

    /** The ACLs one {@code kafka-acls.sh --add} call adds: every principal × operation × resource named. */
    private static List<AclBinding> acls(List<String> call) {
        List<String> principals = new ArrayList<>();
        List<AclOperation> operations = new ArrayList<>();
        Map<String, ResourceType> types = new TreeMap<>(Map.of(
                "--topic", ResourceType.TOPIC,
                "--group", ResourceType.GROUP,
                "--transactional-id", ResourceType.TRANSACTIONAL_ID));
        List<ResourcePattern> resources = new ArrayList<>();
        PatternType pattern = PatternType.LITERAL;
        for (int i = 1; i < call.size(); i++) {
            String option = call.get(i);
            switch (option) {
                case "--allow-principal" -> principals.add(call.get(++i));
                case "--operation" -> operations.add(operation(call.get(++i)));
                case "--resource-pattern-type" ->
                    pattern = PatternType.fromString(call.get(++i).toUpperCase(Locale.ROOT));
                default -> {
                    if (types.containsKey(option)) {
                        resources.add(new ResourcePattern(types.get(option), call.get(++i), pattern));
                    }
                }
            }
        }
        List<AclBinding> acls = new ArrayList<>();
        for (String principal : principals) {
            for (AclOperation operation : operations) {
                for (ResourcePattern resource : resources) {
                    acls.add(new AclBinding(
                            resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
                }
            }
        }
        return acls;
    }

    /** {@code DescribeConfigs} as the tools write it, {@code DESCRIBE_CONFIGS} as the client names it. */
    private static AclOperation operation(String written) {
        return AclOperation.valueOf(
                written.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
    }
}
