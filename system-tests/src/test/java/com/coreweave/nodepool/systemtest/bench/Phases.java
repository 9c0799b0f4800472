package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.systemtest.harness.Stack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs a benchmark's phases one after another, measuring the CPU each used; a phase that fails is noted and ends the
 * run, and the report still comes out. Also the benchmarks' log line and how a report is written.
 */
final class Phases {

    /** A phase's work. */
    interface Body {
        void run() throws Exception;
    }

    private final List<CpuMeter.Usage> usage = new ArrayList<>();
    private final List<String> notes;
    private boolean failed;

    /** {@code notes}: the report's notes, where a failure is written. */
    Phases(List<String> notes) {
        this.notes = notes;
    }

    /** Runs the phase unless an earlier one failed; false when this or an earlier one failed. */
    boolean run(String name, Body body) {
        if (failed) {
            return false;
        }
        return always(name, body);
    }

    /** Runs the phase even after an earlier one failed (what it reads matters most then); false when any failed. */
    boolean always(String name, Body body) {
        boolean failedBefore = failed;
        log("phase " + name);
        CpuMeter.Snapshot before = CpuMeter.snapshot();
        try {
            body.run();
        } catch (Exception | AssertionError e) {
            failed = true;
            notes.add("**phase '" + name + "' failed" + (failedBefore ? "" : ", later phases did not run") + ":** "
                    + e.getMessage());
            log("phase " + name + " FAILED: " + e);
        }
        CpuMeter.Usage used = CpuMeter.between(name, before, CpuMeter.snapshot());
        if (used.wall() > 0.05) {
            usage.add(used);
        }
        log(String.format(
                Locale.ROOT,
                "phase %s done in %.1f s (load average %s)",
                name,
                used.wall(),
                MachineInfo.fmt(used.load1())));
        return !failed;
    }

    /** Fails the run if a phase failed (after the report came out). */
    void requireNoFailure() {
        if (failed) {
            throw new IllegalStateException("a phase failed; see the notes of the report");
        }
    }

    List<CpuMeter.Usage> usage() {
        return usage;
    }

    /** A benchmark's {@code main}: runs it and ends the JVM, with status 1 if it failed. */
    static void runAndExit(Body benchmark) {
        int status = 0;
        try {
            benchmark.run();
        } catch (Exception | AssertionError e) {
            System.err.println("[bench] FAILED: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    static void log(String message) {
        System.out.println(
                "[bench " + LocalDateTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + "] " + message);
    }

    /** Closes the run's clients (null: not started), then stops the stack (null: not started); its logs stay. */
    static void stop(Stack stack, AutoCloseable... clients) throws Exception {
        for (AutoCloseable client : clients) {
            if (client != null) {
                client.close();
            }
        }
        if (stack != null) {
            log("stopping the stack; its logs stay in " + stack.logs());
            stack.close();
        }
    }

    /** Prints the report and writes it to {@code <outDir>/<name>.md}. */
    static void publish(String report, Path outDir, String name) throws IOException {
        System.out.println();
        System.out.println(report);
        Files.createDirectories(outDir);
        Path file = outDir.resolve(name + ".md");
        Files.writeString(file, report, StandardCharsets.UTF_8);
        log("report written to " + file);
    }
}
