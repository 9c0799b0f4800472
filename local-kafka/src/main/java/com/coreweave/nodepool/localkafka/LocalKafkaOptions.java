package com.coreweave.nodepool.localkafka;

import java.nio.file.Path;

/** The command line of {@link LocalKafkaMain}, parsed and checked. */
record LocalKafkaOptions(Path dataDir, int port, int controllerPort) {

    static final String USAGE = "usage: LocalKafkaMain --data-dir <dir> [--port <n>] [--controller-port <n>]"
            + " (defaults: port 9092, controller port 9093)";

    /** Parses the arguments; an {@link IllegalArgumentException} says what is wrong with them. */
    static LocalKafkaOptions parse(String... args) {
        Path dataDir = null;
        int port = 9092;
        int controllerPort = 9093;
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
                default -> throw new IllegalArgumentException("unknown argument " + name);
            }
        }
        if (dataDir == null) {
            throw new IllegalArgumentException("--data-dir is required");
        }
        if (port == controllerPort) {
            throw new IllegalArgumentException("--port and --controller-port must differ");
        }
        return new LocalKafkaOptions(dataDir, port, controllerPort);
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
