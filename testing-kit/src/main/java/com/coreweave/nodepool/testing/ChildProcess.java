package com.coreweave.nodepool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A service, a broker or any component run as a separate OS process, its output appended to one log file across
 * restarts, so a test can kill, stop and restart it exactly like an operator would.
 */
public final class ChildProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final String name;
    private final List<String> command;
    private final Path log;
    private Process process;
    private long logOffsetAtStart;

    public ChildProcess(String name, List<String> command, Path log) {
        this.name = name;
        this.command = List.copyOf(command);
        this.log = log;
    }

    public String name() {
        return name;
    }

    /** Launches the process without waiting for it to be ready. */
    public void launch() {
        if (isAlive()) {
            throw new IllegalStateException(name + " is already running");
        }
        try {
            Files.createDirectories(log.getParent());
            logOffsetAtStart = Files.exists(log) ? Files.size(log) : 0;
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** Waits until {@code ready} holds; fails with the tail of the log if the process dies or time runs out. */
    public void awaitReady(BooleanSupplier ready, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ready.getAsBoolean()) {
            if (!isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue()
                        + " before it was ready; log " + log + " ends with:\n" + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " was not ready within " + timeout.toSeconds() + " s; log " + log
                        + " ends with:\n" + tail());
            }
            nap();
        }
    }

    /** What the process printed since its last launch. */
    public String outputSinceLaunch() {
        try {
            byte[] bytes = Files.readAllBytes(log);
            int from = (int) Math.min(logOffsetAtStart, bytes.length);
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGTERM, then SIGKILL if it has not exited within {@code grace}. */
    public void stop(Duration grace) {
        if (!isAlive()) {
            return;
        }
        // A paused process would not act on SIGTERM until continued.
        resume();
        process.toHandle().destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill9();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill9();
        }
    }

    /** SIGKILL: no shutdown hooks, no flushing, like a crashed host process. */
    public void kill9() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGSTOP: the process is frozen (no heartbeats, no I/O) but keeps its sockets, like a host that stalls. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT: a paused process runs on from where it stopped. */
    public void resume() {
        signal("CONT");
    }

    /** SIGKILL if it still runs: a test's process never outlives the test. */
    @Override
    public void close() {
        if (isAlive()) {
            kill9();
        }
    }

    /** The {@code java} of the JVM running the test, to start another JVM with. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Whether {@code url} answers 200 now (a service's readiness check, say); false while nothing listens there. */
    public static boolean answersOk(URI url) {
        try {
            HttpRequest request =
                    HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(2)).build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException notListeningYet) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking " + url, e);
        }
    }

    private void signal(String signal) {
        if (!isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + name + " (pid " + process.pid() + ") failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send SIG" + signal + " to " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + name, e);
        }
    }

    private String tail() {
        List<String> lines = outputSinceLaunch().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    private static void nap() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a child process", e);
        }
    }
}
