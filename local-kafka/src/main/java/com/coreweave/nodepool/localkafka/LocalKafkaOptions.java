package com.coreweave.nodepool.localkafka;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;

/**
 * The command line of {@link LocalKafkaMain}, parsed and checked. With {@code --tls-dir} the broker is secured
 * (SASL_SSL with SCRAM-SHA-512 and ACLs, {@link BrokerSecurity}); without it, it is the plaintext local-only mode. With
 * {@code --voters} it is one node of a cluster whose controllers are those voters (each node a broker and a
 * controller); without, a single node.
 */
record LocalKafkaOptions(
        Path dataDir,
        int nodeId,
        List<String> voters,
        String clusterId,
        int port,
        int controllerPort,
        int internalPort,
        Path tlsDir,
        String tlsPassword,
        Path principals,
        Path authorizerLog) {

    static final String USAGE = "usage: LocalKafkaMain --data-dir <dir> [--port <n>] [--controller-port <n>]"
            + " [--node-id <n> --voters <id>@<host>:<port>,... --cluster-id <id>]"
            + " [--tls-dir <dir> --principals <file> [--tls-password <p>] [--internal-port <n>]"
            + " [--authorizer-log <file>]]"
            + " (defaults: port 9092, controller port 9093, internal port 9094; --tls-dir holds kafka-broker.p12 and"
            + " ca.crt, --principals is a properties file of <principal>=<password>)";

    static final String DEFAULT_TLS_PASSWORD = "nodepool-local";

    private static final Pattern VOTER = Pattern.compile("(\\d+)@[A-Za-z0-9.-]+:\\d{1,5}");

    /** How many nodes the cluster has: the voters, or this one alone. */
    int nodes() {
        return voters.isEmpty() ? 1 : voters.size();
    }

    /** Whether the broker runs secured. */
    boolean secure() {
        return tlsDir != null;
    }

    BrokerSecurity security() {
        return new BrokerSecurity(tlsDir.resolve("kafka-broker.p12"), tlsPassword, tlsDir.resolve("ca.crt"));
    }

    /** Parses the arguments; an {@link IllegalArgumentException} says what is wrong with them. */
    static LocalKafkaOptions parse(String... args) {
        Path dataDir = null;
        Path tlsDir = null;
        Path principals = null;
        Path authorizerLog = null;
        String tlsPassword = DEFAULT_TLS_PASSWORD;
        String clusterId = null;
        List<String> voters = List.of();
        int nodeId = 1;
        int port = 9092;
        int controllerPort = 9093;
        int internalPort = 9094;
        for (int i = 0; i < args.length; i += 2) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + name);
            }
            String value = args[i + 1];
            switch (name) {
                case "--data-dir" -> dataDir = Path.of(value).toAbsolutePath();
                case "--node-id" -> nodeId = nodeId(value);
                case "--voters" -> voters = List.of(value.split(",", -1));
                case "--cluster-id" -> clusterId = value;
                case "--port" -> port = port(name, value);
                case "--controller-port" -> controllerPort = port(name, value);
                case "--internal-port" -> internalPort = port(name, value);
                case "--tls-dir" -> tlsDir = Path.of(value).toAbsolutePath();
                case "--tls-password" -> tlsPassword = value;
                case "--principals" -> principals = Path.of(value).toAbsolutePath();
                case "--authorizer-log" -> authorizerLog = Path.of(value).toAbsolutePath();
                default -> throw new IllegalArgumentException("unknown argument " + name);
            }
        }
        if (dataDir == null) {
            throw new IllegalArgumentException("--data-dir is required");
        }
        if (port == controllerPort) {
            throw new IllegalArgumentException("--port and --controller-port must differ");
        }
        if ((tlsDir == null) != (principals == null)) {
            throw new IllegalArgumentException("--tls-dir and --principals go together: a secured broker needs both");
        }
        if (tlsDir != null && (internalPort == port || internalPort == controllerPort)) {
            throw new IllegalArgumentException("--internal-port must differ from --port and --controller-port");
        }
        if (authorizerLog != null && tlsDir == null) {
            throw new IllegalArgumentException("--authorizer-log needs a secured broker (--tls-dir, --principals)");
        }
        checkCluster(nodeId, voters, clusterId);
        return new LocalKafkaOptions(
                dataDir,
                nodeId,
                voters,
                clusterId,
                port,
                controllerPort,
                internalPort,
                tlsDir,
                tlsPassword,
                principals,
                authorizerLog);
    }

    /** A cluster needs its id (every node formats its storage with it) and this node among its voters. */
    private static void checkCluster(int nodeId, List<String> voters, String clusterId) {
        if (voters.isEmpty()) {
            if (clusterId != null || nodeId != 1) {
                throw new IllegalArgumentException("--cluster-id and --node-id belong to a cluster: give --voters too");
            }
            return;
        }
        for (String voter : voters) {
            if (!VOTER.matcher(voter).matches()) {
                throw new IllegalArgumentException("--voters is a list of <id>@<host>:<port>, not '" + voter + "'");
            }
        }
        if (voters.stream().noneMatch(v -> v.startsWith(nodeId + "@"))) {
            throw new IllegalArgumentException("--node-id " + nodeId + " is not one of --voters " + voters);
        }
        if (clusterId == null) {
            throw new IllegalArgumentException("--voters needs --cluster-id, the same on every node");
        }
        try {
            Uuid.fromString(clusterId);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--cluster-id must be a Kafka cluster id (22 characters of base64), not '" + clusterId + "'");
        }
    }

    private static int nodeId(String value) {
        try {
            int id = Integer.parseInt(value);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--node-id must be a number 0 or more, got '" + value + "'");
    }

    private static int port(String name, String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " must be a port number 1-65535, got '" + value + "'");
    }
}
