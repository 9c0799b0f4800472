package com.coreweave.nodepool.systemtest.harness;

import com.coreweave.nodepool.localkafka.KafkaAccess;
import com.coreweave.nodepool.localkafka.LocalKafkaMain;
import com.coreweave.nodepool.testing.ChildProcess;
import com.coreweave.nodepool.testing.ClientSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * The whole product as an operator runs it: a real broker and the services' runnable jars, each a separate process on
 * free ports with its own log, so system tests can crash, stop and restart any part of it and watch from outside. With
 * {@link Builder#withCluster()} it is what production runs: three brokers and two instances of every service.
 */
public final class Stack implements AutoCloseable {

    /** Fair: stacks start in the order their classes asked, so the one the orderer put first is up first. */
    private static final ReentrantLock STARTING = new ReentrantLock(true);

    private static final Random PORTS = new Random();
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    /** What ./stack up gives each service too. */
    public static final String DEFAULT_SERVICE_HEAP = "256m";

    private static final Duration BROKER_START = Duration.ofSeconds(120);
    private static final int CLUSTER_BROKERS = 3;
    private static final int CLUSTER_INSTANCES = 2;
    private static final Duration SERVICE_START = Duration.ofSeconds(180);
    private static final Duration GRACEFUL_STOP = Duration.ofSeconds(20);
    /** The data is deleted right after, so close() gives little grace (a Streams app can hang while rebalancing). */
    private static final Duration CLOSING_STOP = Duration.ofSeconds(5);
    /** The api-service's settings that say where the services its dashboard reads from listen. */
    private static final Map<Service, String> DASHBOARD_PEERS =
            Map.of(Service.QUOTA, "nodepool.dashboard.quota-url", Service.CAPACITY, "nodepool.dashboard.capacity-url");

    private final Set<Service> services;
    private final Map<Service, Map<String, String>> properties;
    private final String serviceHeap;
    private final Path projectRoot;
    private final Path logs;
    private final Path workDir;
    /** The brokers: one, or the nodes of a cluster in the order of their node ids (1, 2, 3). */
    private final List<Broker> brokers = new ArrayList<>();

    private final int instancesPerService;
    /** Each service's instances: the first has the service's own name, its log and its port, as in a single stack. */
    private final Map<Service, List<Instance>> instances = new EnumMap<>(Service.class);

    private final List<ChildProcess> extraInstances = new ArrayList<>();
    /** The base URL of each extra instance, by service, for what must reach every instance (per-instance state). */
    private final Map<Service, List<URI>> extraUrls = new ConcurrentHashMap<>();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread shutdownHook = new Thread(this::close, "stack-shutdown");
    /** The broker's principals when it is secured (the default), null in the plaintext local-only mode. */
    private final KafkaPrincipals principals;

    private final ApiTls apiTls;
    private final JwtKeys jwtKeys;
    private final int apiHttpsPort;
    private boolean closed;

    private Stack(Builder builder) {
        services = EnumSet.copyOf(builder.services);
        properties = new EnumMap<>(Service.class);
        builder.properties.forEach((service, values) -> properties.put(service, Map.copyOf(values)));
        properties.keySet().forEach(this::requireChosen);
        serviceHeap = builder.serviceHeap;
        projectRoot = Path.of(System.getProperty("stack.project-root", ".."))
                .toAbsolutePath()
                .normalize();
        String runId = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + UUID.randomUUID().toString().substring(0, 6);
        logs = Path.of(System.getProperty("stack.logs-dir", "target/stack-logs"))
                .toAbsolutePath()
                .resolve(runId);
        try {
            workDir = Files.createTempDirectory("nodepool-stack-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ApiTls tls = builder.apiTls || builder.secureKafka ? ApiTls.create(workDir.resolve("tls")) : null;
        principals = builder.secureKafka
                ? new KafkaPrincipals(workDir.resolve("kafka-access"), tls.caCertificate(), builder.orgs)
                : null;
        Path principalsFile = principals != null ? principals.write() : null;
        int nodes = builder.cluster ? CLUSTER_BROKERS : 1;
        List<Integer> clientPorts = new ArrayList<>();
        List<String> voters = new ArrayList<>();
        for (int node = 1; node <= nodes; node++) {
            clientPorts.add(freePort());
            voters.add(node + "@localhost:" + freePort());
        }
        String clusterId = Uuid.randomUuid().toString();
        for (int node = 1; node <= nodes; node++) {
            String name = nodes == 1 ? "kafka" : "kafka-" + node;
            int port = clientPorts.get(node - 1);
            List<String> command = new ArrayList<>(List.of(
                    java(),
                    "-Xmx512m",
                    jvmOptions(projectRoot),
                    "-cp",
                    brokerClasspath(),
                    LocalKafkaMain.class.getName(),
                    "--data-dir",
                    workDir.resolve(name).toString(),
                    "--port",
                    String.valueOf(port),
                    "--controller-port",
                    voters.get(node - 1).substring(voters.get(node - 1).lastIndexOf(':') + 1)));
            if (nodes > 1) {
                command.addAll(List.of(
                        "--node-id",
                        String.valueOf(node),
                        "--voters",
                        String.join(",", voters),
                        "--cluster-id",
                        clusterId));
            }
            if (principals != null) {
                command.addAll(List.of(
                        "--tls-dir",
                        tls.brokerKeyStore().getParent().toString(),
                        "--tls-password",
                        tls.password(),
                        "--principals",
                        principalsFile.toString(),
                        "--internal-port",
                        String.valueOf(freePort()),
                        "--authorizer-log",
                        logs.resolve(node == 1 ? "kafka-authorizer.log" : "kafka-authorizer-" + node + ".log")
                                .toString()));
            }
            brokers.add(new Broker(node, port, new ChildProcess(name, command, logs.resolve(name + ".log"))));
        }
        instancesPerService = builder.cluster ? CLUSTER_INSTANCES : 1;
        apiTls = builder.apiTls ? tls : null;
        jwtKeys = JwtKeys.create(workDir.resolve("tls"));
        apiHttpsPort = builder.apiTls ? freePort() : -1;
        for (Service service : services) {
            List<Instance> list = new ArrayList<>();
            int count = builder.oneInstanceOf.contains(service) ? 1 : instancesPerService;
            for (int i = 1; i <= count; i++) {
                list.add(new Instance(
                        service, i == 1 ? service.module() : service.module() + "-" + i, freePort(), builder.cluster));
            }
            instances.put(service, list);
        }
    }

    /** A broker of the stack: its node id, client port and process. */
    private record Broker(int node, int port, ChildProcess process) {}

    /**
     * One instance of a service: its id (names its log, state dir and audit log) and HTTP port; its process once
     * launched.
     */
    private static final class Instance {
        final Service service;
        final String id;
        final int port;
        final boolean cluster;
        ChildProcess process;

        Instance(Service service, String id, int port, boolean cluster) {
            this.service = service;
            this.id = id;
            this.port = port;
            this.cluster = cluster;
        }

        URI url() {
            return URI.create("http://localhost:" + port);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the broker, then all chosen services at once, and returns when every one of them is ready. One stack
     * starts at a time in a JVM: several starting together on a small machine time out their services' first writes.
     */
    public Stack start() {
        STARTING.lock();
        try {
            return startAlone();
        } finally {
            STARTING.unlock();
        }
    }

    private Stack startAlone() {
        services.forEach(this::requireJar);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        if (principals != null) {
            // The test's own probes and producers are the cluster's administrator, who may read and write anything.
            ClientSecurity.use(bootstrapServers(), principals.client(KafkaAccess.ADMIN));
        }
        try {
            brokers.forEach(broker -> broker.process().launch());
            brokers.forEach(this::awaitBrokerReady);
            allInstances().forEach(instance -> instance.process = launch(instance));
            allInstances().forEach(instance -> awaitReady(instance.process, instance.url()));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        return this;
    }

    public String bootstrapServers() {
        return String.join(
                ",", brokers.stream().map(b -> "localhost:" + b.port()).toList());
    }

    /** Base URL of a service's first instance, e.g. {@code http://localhost:41234}. */
    public URI url(Service service) {
        return url(service, 1);
    }

    /** Base URL of instance {@code instance} (1, 2, ...) of a service. */
    public URI url(Service service, int instance) {
        return chosen(service, instance).url();
    }

    /** The base URLs of every running instance of a service, extra instances included. */
    public List<URI> urls(Service service) {
        List<URI> all = new ArrayList<>();
        for (int i = 1; i <= instances(service); i++) {
            all.add(url(service, i));
        }
        all.addAll(extraUrls.getOrDefault(service, List.of()));
        return all;
    }

    /** How many instances a service runs at most: 1, or 2 in a cluster. */
    public int instances() {
        return instancesPerService;
    }

    /** How many instances {@code service} runs: {@link #instances()}, or 1 if the builder said so. */
    public int instances(Service service) {
        return instances.get(service).size();
    }

    /** The node ids of the brokers: 1, or 1 to 3 in a cluster. */
    public List<Integer> brokerNodes() {
        return brokers.stream().map(Broker::node).toList();
    }

    /** Whether the broker is secured (SASL_SSL, SCRAM-SHA-512, ACLs): the default; see Builder#withPlaintextKafka. */
    public boolean secureKafka() {
        return principals != null;
    }

    /**
     * A Java client's configuration as {@code principal} (a service, {@code nodepool-operator}, {@code monitoring},
     * {@code kafka-admin} or {@code tenant-<org>} of an org of {@link Builder#withOrgs}), with the brokers.
     */
    public Map<String, Object> kafkaClient(String principal, Map<String, Object> config) {
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("bootstrap.servers", bootstrapServers());
        client.putAll(config);
        client.putAll(securePrincipals().client(principal));
        return client;
    }

    /** A kcat ({@code -F}) configuration file of {@code principal} for this stack's broker. */
    public Path kcatConfig(String principal) {
        return securePrincipals().kcatConfig(principal, bootstrapServers());
    }

    private KafkaPrincipals securePrincipals() {
        if (principals == null) {
            throw new IllegalStateException(
                    "the stack's broker is plaintext (withPlaintextKafka): it has no principals");
        }
        return principals;
    }

    /** The API's HTTPS URL ({@link Builder#withApiTls()}), where kubectl sends its bearer token. */
    public URI apiHttpsUrl() {
        if (apiTls == null) {
            throw new IllegalStateException("the stack was built without withApiTls()");
        }
        return URI.create("https://localhost:" + apiHttpsPort);
    }

    /**
     * The local PKI of the API's HTTPS ({@link Builder#withApiTls()}): its CA, the certificate it serves, and client
     * certificates of that CA.
     */
    public ApiTls apiTls() {
        return apiTls;
    }

    /** The key pair every service checks bearer JWTs with; {@link JwtKeys#sign} makes tokens. */
    public JwtKeys jwtKeys() {
        return jwtKeys;
    }

    /** What the secured broker's authorizer refused, one line each (principal, operation, resource). */
    public Path brokerAuthorizerLog() {
        securePrincipals();
        return logs.resolve("kafka-authorizer.log");
    }

    /** The audit log of a service's first instance: one Kubernetes audit Event a line (docs/security.md, "Audit"). */
    public Path auditLog(Service service) {
        requireChosen(service);
        return auditLog(service.module());
    }

    private Path auditLog(String instanceId) {
        return logs.resolve("audit-" + instanceId + ".log");
    }

    /** Where this run's logs are: one file per component, appended across restarts. */
    public Path logs() {
        return logs;
    }

    /**
     * Starts one more instance of a running service (its own port, state dir and log), as a deployment with several
     * instances has, and returns its base URL once it is ready.
     */
    public URI startExtraInstance(Service service, String instanceId) {
        requireChosen(service);
        int port = freePort();
        ChildProcess process = launch(service, port, instanceId);
        extraInstances.add(process);
        URI url = URI.create("http://localhost:" + port);
        awaitReady(process, url);
        extraUrls.computeIfAbsent(service, s -> new CopyOnWriteArrayList<>()).add(url);
        return url;
    }

    /** Stops every extra instance gracefully, so the stack is as it started for the classes after. */
    public synchronized void stopExtraInstances() {
        extraInstances.forEach(process -> process.stop(GRACEFUL_STOP));
        extraInstances.clear();
        extraUrls.clear();
    }

    /** Graceful stop: SIGTERM, then SIGKILL if it has not exited within 20 s. */
    public void stop(Service service) {
        process(service).stop(GRACEFUL_STOP);
    }

    /** SIGKILL: the service gets no chance to flush or commit anything. */
    public void kill9(Service service) {
        kill9(service, 1);
    }

    /** SIGKILL of one instance of a service. */
    public void kill9(Service service, int instance) {
        instance(service, instance).process.kill9();
    }

    /** SIGSTOP: the service freezes without dying; its broker sessions expire once paused longer than they last. */
    public void pause(Service service) {
        pause(service, 1);
    }

    public void pause(Service service, int instance) {
        instance(service, instance).process.pause();
    }

    /** SIGCONT: a paused service runs on. */
    public void resume(Service service) {
        resume(service, 1);
    }

    public void resume(Service service, int instance) {
        instance(service, instance).process.resume();
    }

    /** Whether the service answers its readiness check now. */
    public boolean ready(Service service) {
        return ready(url(service));
    }

    public boolean ready(Service service, int instance) {
        return ready(url(service, instance));
    }

    /** Starts the service again (stopping it first if it runs) with the same port, state dir and properties. */
    public void restart(Service service) {
        restart(service, 1);
    }

    /** Starts one instance again (stopping it first if it runs), as a rolling restart does, and waits until ready. */
    public void restart(Service service, int instance) {
        Instance chosen = instance(service, instance);
        chosen.process.stop(GRACEFUL_STOP);
        chosen.process.launch();
        awaitReady(chosen.process, chosen.url());
    }

    /**
     * Starts the service again with {@code changed} properties set over its own, as an operator's configuration change
     * rolls out (same port and state dir), and waits until it is ready.
     */
    public void restart(Service service, Map<String, String> changed) {
        Map<String, String> merged = new LinkedHashMap<>(properties.getOrDefault(service, Map.of()));
        merged.putAll(changed);
        properties.put(service, Map.copyOf(merged));
        Instance chosen = instance(service, 1);
        chosen.process.stop(GRACEFUL_STOP);
        chosen.process = launch(chosen);
        awaitReady(chosen.process, chosen.url());
    }

    public void stopBroker() {
        stopBroker(1);
    }

    public void stopBroker(int node) {
        broker(node).process().stop(GRACEFUL_STOP);
    }

    public void kill9Broker() {
        kill9Broker(1);
    }

    public void kill9Broker(int node) {
        broker(node).process().kill9();
    }

    /** Starts the broker again (stopping it first if it runs) on the same ports and the same data. */
    public void restartBroker() {
        restartBroker(1);
    }

    /**
     * Starts broker {@code node} again (stopping it first if it runs) on the same ports and data; waits until ready.
     */
    public void restartBroker(int node) {
        Broker broker = broker(node);
        broker.process().stop(GRACEFUL_STOP);
        broker.process().launch();
        awaitBrokerReady(broker);
    }

    /** Whether broker {@code node}'s process runs (it may still be starting). */
    public boolean brokerAlive(int node) {
        return broker(node).process().isAlive();
    }

    /**
     * Stops every service, then the broker (SIGTERM, SIGKILL after 5 s), and deletes their data; the logs stay. Safe to
     * call more than once.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Thread> stopping = new ArrayList<>();
        List<ChildProcess> all = new ArrayList<>(extraInstances);
        allInstances().stream()
                .filter(instance -> instance.process != null)
                .forEach(instance -> all.add(instance.process));
        for (ChildProcess process : all) {
            stopping.add(Thread.ofPlatform().start(() -> process.stop(CLOSING_STOP)));
        }
        for (Thread thread : stopping) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        brokers.forEach(broker -> broker.process().stop(CLOSING_STOP));
        ClientSecurity.clear(bootstrapServers());
        deleteRecursively(workDir);
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down and runs the hook itself
            }
        }
    }

    private void awaitBrokerReady(Broker broker) {
        broker.process()
                .awaitReady(
                        () -> broker.process()
                                .outputSinceLaunch()
                                .contains("local-kafka ready on localhost:" + broker.port()),
                        BROKER_START);
    }

    private List<Instance> allInstances() {
        return instances.values().stream().flatMap(List::stream).toList();
    }

    /** A started instance. */
    private Instance instance(Service service, int instance) {
        Instance chosen = chosen(service, instance);
        if (chosen.process == null) {
            throw new IllegalStateException("the stack was not started");
        }
        return chosen;
    }

    private Instance chosen(Service service, int instance) {
        requireChosen(service);
        List<Instance> list = instances.get(service);
        if (instance < 1 || instance > list.size()) {
            throw new IllegalArgumentException(
                    service.module() + " runs " + list.size() + " instance(s), not an instance " + instance);
        }
        return list.get(instance - 1);
    }

    private Broker broker(int node) {
        return brokers.stream()
                .filter(b -> b.node() == node)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no broker with node id " + node));
    }

    private ChildProcess launch(Instance instance) {
        return launch(instance.service, instance.port, instance.id, instance.cluster);
    }

    private ChildProcess launch(Service service, int port, String instanceId) {
        return launch(service, port, instanceId, instancesPerService > 1);
    }

    private ChildProcess launch(Service service, int port, String instanceId, boolean cluster) {
        List<String> command = new ArrayList<>(List.of(
                java(),
                "-Xmx" + serviceHeap,
                jvmOptions(projectRoot),
                "--enable-native-access=ALL-UNNAMED",
                // The "demo" profile carries the demo-only tokens the tests call with.
                "-Dquarkus.profile=local,demo",
                "-Dquarkus.http.port=" + port,
                "-Dkafka.bootstrap.servers=" + bootstrapServers(),
                // Kafka Streams' own state.dir: Quarkus ignores a quarkus.kafka-streams.state-dir ("unrecognized key").
                "-Dkafka-streams.state.dir=" + workDir.resolve("state").resolve(instanceId),
                "-Dnodepool.audit.file=" + auditLog(instanceId)));
        // On the secured broker each service is its own principal; on a plaintext one it takes the harness's settings.
        command.addAll(
                principals != null ? principals.serviceArguments(service.module()) : ClientSecurity.serviceArguments());
        if (service == Service.API) {
            // The dashboard's reads of the quotas and the fleet go to those services, wherever they listen.
            DASHBOARD_PEERS.forEach((peer, key) -> {
                if (services.contains(peer)) {
                    command.add("-D" + key + "=" + url(peer));
                }
            });
        }
        command.addAll(jwtKeys.properties());
        if (cluster) {
            // As ./stack up --cluster: topics (Streams' own too) with three replicas, two in sync for a write; a
            // standby of every task on the other instance.
            command.addAll(List.of(
                    "-Dnodepool.kafka.replication-factor=3",
                    "-Dnodepool.kafka.min-insync-replicas=2",
                    "-Dkafka-streams.topic.min.insync.replicas=2",
                    "-Dkafka-streams.num.standby.replicas=1"));
        }
        properties.getOrDefault(service, Map.of()).forEach((key, value) -> command.add("-D" + key + "=" + value));
        if (apiTls != null && service == Service.API) {
            // An extra instance listens on its own HTTPS port.
            command.addAll(apiTls.properties(instanceId.equals(service.module()) ? apiHttpsPort : freePort()));
        }
        command.addAll(List.of("-jar", jar(service).toString()));
        ChildProcess process = new ChildProcess(instanceId, command, logs.resolve(instanceId + ".log"));
        process.launch();
        return process;
    }

    private void awaitReady(ChildProcess process, URI url) {
        process.awaitReady(() -> ready(url), SERVICE_START);
    }

    private boolean ready(URI url) {
        HttpRequest health = HttpRequest.newBuilder(url.resolve("/q/health/ready"))
                .timeout(Duration.ofSeconds(2))
                .build();
        try {
            return http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking " + url + " whether it is ready", e);
        }
    }

    private ChildProcess process(Service service) {
        return instance(service, 1).process;
    }

    private void requireChosen(Service service) {
        if (!services.contains(service)) {
            throw new IllegalArgumentException(service.module() + " is not part of this stack; add it with "
                    + "Stack.builder().withServices(...)");
        }
    }

    private Path jar(Service service) {
        return projectRoot.resolve(service.module()).resolve("target/quarkus-app/quarkus-run.jar");
    }

    private void requireJar(Service service) {
        if (!Files.isRegularFile(jar(service))) {
            throw new IllegalStateException(jar(service) + " is missing: build the services first, e.g. "
                    + "./mvnw -B -DskipTests install in " + projectRoot);
        }
    }

    /** The broker child's classpath as Maven wrote it, or this JVM's own one when run from an IDE. */
    private static String brokerClasspath() {
        String file = System.getProperty("stack.broker-classpath-file");
        if (file == null) {
            return System.getProperty("java.class.path");
        }
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the broker classpath from " + file, e);
        }
    }

    /** The project's JVM options of the services and the broker (its jvm.options), as a java argument file. */
    public static String jvmOptions(Path projectRoot) {
        Path options = projectRoot.resolve("jvm.options");
        if (!Files.isRegularFile(options)) {
            throw new IllegalStateException("the project's JVM options are missing: " + options);
        }
        return "@" + options;
    }

    private static String java() {
        if (Runtime.version().feature() < 21) {
            throw new IllegalStateException("the stack needs a JDK >= 21 for its child processes; this test runs on "
                    + Runtime.version() + " from " + System.getProperty("java.home"));
        }
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * A port nobody listens on, never handed out before in this JVM, and below Linux's ephemeral range (32768+):
     * {@code new ServerSocket(0)} twice can give the same port, or one a client connection takes before the child binds
     * it (a service then failed with "Port ... seems to be in use" and another one answered its requests).
     */
    private static synchronized int freePort() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 20000 + PORTS.nextInt(12000);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port)) {
                HANDED_OUT.add(port);
                return socket.getLocalPort();
            } catch (IOException inUse) {
                // taken by another process: try the next
            }
        }
        throw new IllegalStateException("no free port found between 20000 and 32000");
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /** Chooses the services to run (none: just the broker) and the extra system properties each one gets. */
    public static final class Builder {

        private final Set<Service> services = EnumSet.noneOf(Service.class);
        private final Map<Service, Map<String, String>> properties = new EnumMap<>(Service.class);
        private String serviceHeap = DEFAULT_SERVICE_HEAP;
        private boolean apiTls;
        private boolean secureKafka = true;
        private final Set<String> orgs = new LinkedHashSet<>(List.of("demo", "other"));
        private boolean cluster;
        private final Set<Service> oneInstanceOf = EnumSet.noneOf(Service.class);

        private Builder() {}

        /**
         * The documented local-only mode: a PLAINTEXT broker without authentication or ACLs, where any client acts for
         * any org. Only for tests of that mode; every other stack runs the secured broker.
         */
        public Builder withPlaintextKafka() {
            secureKafka = false;
            return this;
        }

        /**
         * As production runs it ({@code ./stack up --cluster}): three brokers (replication factor 3,
         * min.insync.replicas 2) and two instances of every service chosen, with a standby replica of every task.
         */
        public Builder withCluster() {
            cluster = true;
            return this;
        }

        /** In a cluster, these services run one instance only (tests that never lose one need no second). */
        public Builder withOneInstanceOf(Service... services) {
            oneInstanceOf.addAll(List.of(services));
            return this;
        }

        /** Orgs (besides demo and other) whose principal {@code tenant-<org>} may publish to its own topics. */
        public Builder withOrgs(String... more) {
            orgs.addAll(List.of(more));
            return this;
        }

        public Builder withServices(Service... chosen) {
            services.addAll(List.of(chosen));
            return this;
        }

        /** A {@code -Dkey=value} for one service, e.g. a duration shortened for the test. */
        public Builder withProperty(Service service, String key, String value) {
            properties.computeIfAbsent(service, s -> new LinkedHashMap<>()).put(key, value);
            return this;
        }

        /** Each service's maximum heap ({@code -Xmx}), e.g. {@code 1g}; {@value #DEFAULT_SERVICE_HEAP} unless set. */
        public Builder withServiceHeap(String maxHeap) {
            if (!maxHeap.matches("\\d+[kKmMgG]?")) {
                throw new IllegalArgumentException(
                        "a heap size is a number with an optional k, m or g, not '" + maxHeap + "'");
            }
            serviceHeap = maxHeap;
            return this;
        }

        /**
         * The API listens on HTTPS too, with a certificate for localhost of the stack's own CA, and asks clients for a
         * certificate of that CA ({@link ApiTls}).
         */
        public Builder withApiTls() {
            apiTls = true;
            return this;
        }

        /** Builds the stack; call {@link Stack#start()} on it. */
        public Stack build() {
            return new Stack(this);
        }
    }
}
