package com.coreweave.nodepool.localkafka;

import java.nio.file.Path;

/**
 * The command line of {@link LocalKafkaMain}, parsed and checked. With {@code --tls-dir} the broker is secured
 * (SASL_SSL with SCRAM-SHA-512 and ACLs, {@link BrokerSecurity}); without it, it is the plaintext local-only mode.
 */
record LocalKafkaOptions(
        Path dataDir,
        int port,
        int controllerPort,
        int internalPort,
        Path tlsDir,
        String tlsPassword,
        Path principals,
        Path authorizerLog) {

    static final String USAGE = "usage: LocalKafkaMain --data-dir <dir> [--port <n>] [--controller-port <n>]"
            + " [--tls-dir <dir> --principals <file> [--tls-password <p>] [--internal-port <n>]"
            + " [--authorizer-log <file>]]"
            + " (defaults: port 9092, controller port 9093, internal port 9094; --tls-dir holds kafka-broker.p12 and"
            + " ca.crt, --principals is a properties file of <principal>=<password>)";

    static final String DEFAULT_TLS_PASSWORD = "nodepool-local";

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
        return new LocalKafkaOptions(
                dataDir, port, controllerPort, internalPort, tlsDir, tlsPassword, principals, authorizerLog);
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
