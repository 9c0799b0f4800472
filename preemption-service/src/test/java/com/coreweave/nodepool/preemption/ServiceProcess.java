package com.coreweave.nodepool.preemption;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged preemption-service ({@code target/quarkus-app}, built by {@code package} before failsafe runs) as a
 * child process of the test, so a test can kill it with SIGKILL and start it again, as an operator's kill -9 would.
 */
final class ServiceProcess implements AutoCloseable {

  private final Process process;
  private final Path log;
  private final int port;

  private ServiceProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Starts the service with {@code config} as system properties; its output goes to {@code log}. */
  static ServiceProcess start(Map<String, String> config, int port, Path log) throws IOException {
    String jar = System.getProperty("packaged.service.jar");
    if (jar == null || !Files.exists(Path.of(jar))) {
      throw new IllegalStateException("the packaged service (system property packaged.service.jar, " + jar
          + ") is missing: run this test through 'mvnw verify', which packages the service first");
    }
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-Dquarkus.http.port=" + port));
    config.forEach((key, value) -> command.add("-D" + key + "=" + value));
    command.addAll(List.of("-jar", jar));
    Files.createDirectories(log.getParent());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new ServiceProcess(process, log, port);
  }

  /** Waits until the service answers its readiness check. */
  void awaitReady(Duration timeout) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/q/health/ready"))
        .timeout(Duration.ofSeconds(2)).build();
    Instant deadline = Instant.now().plus(timeout);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the service exited with " + process.exitValue() + "; see " + log);
      }
      try {
        if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // The HTTP server is not up yet.
      }
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("the service was not ready within " + timeout + "; see " + log);
      }
      Thread.sleep(200);
    }
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed or committed. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the service did not die after SIGKILL");
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
