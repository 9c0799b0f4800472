package com.coreweave.nodepool.localkafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real KRaft Kafka node (combined broker and controller) run as its own process, for {@code ./stack} and the system
 * tests: a single node, or one of a cluster of three ({@code --voters}; {@code ./stack up --cluster}); secured
 * (SASL_SSL, SCRAM-SHA-512, ACLs; {@link BrokerSecurity}) when given a TLS dir and principals, else plaintext for the
 * local-only mode. Data stays in the data dir between runs; SIGTERM shuts the broker down cleanly.
 */
public final class LocalKafkaMain {

    private LocalKafkaMain() {}

    public static void main(String[] args) {
        // Kafka logs through slf4j and log4j-api, both routed to JBoss LogManager, which wants to own JUL as well.
        System.setProperty("java.util.logging.manager", "org.jboss.logmanager.LogManager");
        LocalKafkaOptions options;
        try {
            options = LocalKafkaOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("local-kafka: " + e.getMessage());
            System.err.println(LocalKafkaOptions.USAGE);
            System.exit(2);
            return;
        }
        BrokerLogging.quietAllKafka();
        if (options.authorizerLog() != null) {
            BrokerLogging.auditDenials(options.authorizerLog());
        }
        try {
            run(options);
        } catch (Exception e) {
            System.err.println("local-kafka failed to start: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(LocalKafkaOptions options) throws IOException {
        Properties properties = serverProperties(options);
        Path config = options.dataDir().resolve("server.properties");
        Files.createDirectories(options.dataDir());
        try (Writer out = Files.newBufferedWriter(config)) {
            properties.store(out, "written by LocalKafkaMain on every start");
        }
        formatIfNeeded(options, config);
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(properties), Time.SYSTEM);
        server.startup();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            System.out.println("local-kafka stopping");
                            server.shutdown();
                            server.awaitShutdown();
                            System.out.println("local-kafka stopped");
                        },
                        "local-kafka-shutdown"));
        awaitPortOpen(options.port());
        if (options.secure()) {
            Map<String, String> principals = principals(options.principals());
            try {
                AccessSetup.apply(options.security().brokerClient(options.internalPort()), principals, options.nodes());
            } catch (ExecutionException e) {
                throw new IllegalStateException("setting up the principals and ACLs failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while setting up the principals", e);
            }
            System.out.println("local-kafka secured: SASL_SSL (SCRAM-SHA-512) with ACLs for " + principals.size()
                    + " principals: " + String.join(", ", principals.keySet()));
        }
        System.out.println("local-kafka ready on localhost:" + options.port());
        server.awaitShutdown();
    }

    private static Properties serverProperties(LocalKafkaOptions options) {
        Properties properties = new Properties();
        properties.putAll(BrokerSettings.forCluster(options.nodes()));
        properties.put("process.roles", "broker,controller");
        properties.put("node.id", String.valueOf(options.nodeId()));
        if (options.secure()) {
            properties.putAll(options.security()
                    .brokerSettings(options.port(), options.internalPort(), options.controllerPort()));
        } else {
            properties.put(
                    "listeners",
                    "PLAINTEXT://localhost:" + options.port() + ",CONTROLLER://localhost:" + options.controllerPort());
            properties.put("advertised.listeners", "PLAINTEXT://localhost:" + options.port());
            properties.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            properties.put("inter.broker.listener.name", "PLAINTEXT");
            properties.put("controller.listener.names", "CONTROLLER");
        }
        if (options.voters().isEmpty()) {
            properties.put("controller.quorum.bootstrap.servers", "localhost:" + options.controllerPort());
        } else {
            // A static quorum: every node knows the three controllers from the start, as Strimzi's nodes do.
            properties.put("controller.quorum.voters", String.join(",", options.voters()));
        }
        properties.put("log.dirs", logDir(options).toString());
        return properties;
    }

    /** Formats only a fresh data dir, so a restart keeps its records and its cluster id. */
    private static void formatIfNeeded(LocalKafkaOptions options, Path config) {
        if (Files.exists(logDir(options).resolve("meta.properties"))) {
            return;
        }
        List<String> format = new ArrayList<>(List.of(
                "format",
                "-t",
                options.clusterId() != null
                        ? options.clusterId()
                        : Uuid.randomUuid().toString(),
                "-c",
                config.toString(),
                "--release-version",
                MetadataVersion.LATEST_PRODUCTION.version()));
        if (options.voters().isEmpty()) {
            format.add("--standalone");
        }
        int exit = StorageTool.execute(format.toArray(String[]::new), System.out);
        if (exit != 0) {
            throw new IllegalStateException("formatting " + logDir(options) + " failed with exit code " + exit);
        }
    }

    /**
     * The principals file: {@code <principal>=<password>} a line; each principal must be one {@link KafkaAccess} knows.
     */
    static Map<String, String> principals(Path file) throws IOException {
        Properties read = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            read.load(in);
        }
        Map<String, String> principals = new TreeMap<>();
        for (String principal : read.stringPropertyNames()) {
            String password = read.getProperty(principal).strip();
            if (password.length() < 12) {
                throw new IllegalArgumentException(
                        file + ": the password of " + principal + " is shorter than 12 characters");
            }
            KafkaAccess.forPrincipal(principal);
            principals.put(principal, password);
        }
        if (principals.isEmpty()) {
            throw new IllegalArgumentException(file + " names no principal");
        }
        return principals;
    }

    private static Path logDir(LocalKafkaOptions options) {
        return options.dataDir().resolve("kraft-logs");
    }

    private static void awaitPortOpen(int port) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("localhost", port), 1_000);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new UncheckedIOException("port " + port + " did not open within 30 s", e);
                }
                sleep();
            }
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the broker", e);
        }
    }
}
