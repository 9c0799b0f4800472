package com.coreweave.nodepool.localkafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalKafkaMainTest {

    @TempDir
    Path dataDir;

    @Test
    void keepsRecordsAcrossSigtermAndRestart() throws Exception {
        int[] ports = twoFreePorts();
        int port = ports[0];
        int controllerPort = ports[1];
        String bootstrap = "localhost:" + port;

        Broker first = Broker.start(dataDir, port, controllerPort);
        TestClients.createTopic(bootstrap, "kept");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of("bootstrap.servers", bootstrap), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("kept", "k", "v1")).get();
        }
        assertEquals(List.of("v1"), TestClients.readCommitted(bootstrap, "kept", 1));
        first.sigtermAndWait();
        assertTrue(first.output().contains("local-kafka stopped"), first.output());

        Broker second = Broker.start(dataDir, port, controllerPort);
        try {
            assertEquals(List.of("v1"), TestClients.readCommitted(bootstrap, "kept", 1));
        } finally {
            second.sigtermAndWait();
        }
    }

    @Test
    void missingDataDirPrintsUsageAndFails() throws Exception {
        Process process = new ProcessBuilder(javaCommand("--port", "1234"))
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertEquals(2, process.waitFor());
        assertTrue(output.contains("--data-dir is required") && output.contains("usage:"), output);
    }

    /** Both sockets are open at once, so the two ports differ (two {@code ServerSocket(0)} in turn may not). */
    private static int[] twoFreePorts() throws IOException {
        try (ServerSocket broker = new ServerSocket(0);
                ServerSocket controller = new ServerSocket(0)) {
            return new int[] {broker.getLocalPort(), controller.getLocalPort()};
        }
    }

    private static List<String> javaCommand(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                LocalKafkaMain.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** A LocalKafkaMain child process and everything it printed. */
    private record Broker(Process process, Thread reader, StringBuffer lines) {

        static Broker start(Path dataDir, int port, int controllerPort) throws Exception {
            Process process = new ProcessBuilder(javaCommand(
                            "--data-dir",
                            dataDir.toString(),
                            "--port",
                            String.valueOf(port),
                            "--controller-port",
                            String.valueOf(controllerPort)))
                    .redirectErrorStream(true)
                    .start();
            StringBuffer output = new StringBuffer();
            CompletableFuture<Void> ready = new CompletableFuture<>();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader lines =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                        output.append(line).append('\n');
                        if (line.equals("local-kafka ready on localhost:" + port)) {
                            ready.complete(null);
                        }
                    }
                } catch (IOException e) {
                    ready.completeExceptionally(e);
                }
                ready.completeExceptionally(new IllegalStateException("broker exited:\n" + output));
            });
            try {
                ready.get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                process.destroyForcibly();
                throw e;
            }
            return new Broker(process, reader, output);
        }

        String output() {
            return lines.toString();
        }

        void sigtermAndWait() throws InterruptedException {
            process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close the output being read
            assertTrue(process.waitFor(20, TimeUnit.SECONDS), "broker did not stop on SIGTERM:\n" + lines);
            reader.join();
        }
    }
}
