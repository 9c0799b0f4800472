package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.systemtest.harness.Service;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a report says about where it ran: the machine, its load, the stack's commit and when the measured jars were
 * built, so that a figure can be compared only with runs under the same conditions.
 */
final class MachineInfo {

    static final Path PROJECT_ROOT = Path.of(System.getProperty("stack.project-root", ".."))
            .toAbsolutePath()
            .normalize();

    /** When and under what load a run started; its id is the local time, {@code yyyyMMdd-HHmmss}. */
    record Start(String runId, String startedAt, double[] load) {

        static Start now() {
            return new Start(
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")),
                    Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                    CpuMeter.loadAverage());
        }
    }

    private MachineInfo() {}

    /** The first rows of a report's "machine and stack" table (Markdown, two columns). */
    static String rows(Start start) {
        double[] loadAtEnd = CpuMeter.loadAverage();
        return "| started | " + start.startedAt() + " |\n"
                + "| cores | " + Runtime.getRuntime().availableProcessors() + " (" + cpuModel() + ") |\n"
                + "| memory | " + memory() + " |\n"
                + "| JDK | " + System.getProperty("java.vm.vendor") + ' ' + Runtime.version() + " ("
                + System.getProperty("java.home") + ") |\n"
                + "| OS | " + System.getProperty("os.name") + ' ' + System.getProperty("os.version") + ' '
                + System.getProperty("os.arch") + " |\n"
                + "| stack commit | " + commit() + " |\n"
                + "| service jars | " + jarsBuilt() + " |\n"
                + "| load average (1/5/15 min) | start " + load(start.load()) + ", end " + load(loadAtEnd) + " |\n"
                + "| other JVMs on the machine at the end | " + otherJvms() + " |\n";
    }

    static String load(double[] load) {
        return fmt(load[0]) + " / " + fmt(load[1]) + " / " + fmt(load[2]);
    }

    static String fmt(double value) {
        return Double.isNaN(value) ? "?" : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal"))
                    .findFirst()
                    .map(l -> String.format(
                            Locale.ROOT, "%.1f GiB", Long.parseLong(l.replaceAll("\\D", "")) / 1024.0 / 1024.0))
                    .orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String commit() {
        String head = git("rev-parse", "--short", "HEAD");
        long changed = git("status", "--porcelain", "--untracked-files=no")
                .lines()
                .filter(l -> !l.isBlank())
                .count();
        long all =
                git("status", "--porcelain").lines().filter(l -> !l.isBlank()).count();
        return (head.isBlank() ? "?" : head)
                + (changed > 0 ? " + " + changed + " modified tracked file(s)" : "")
                + (all > changed ? " (+ " + (all - changed) + " untracked path(s))" : "");
    }

    private static String git(String... args) {
        try {
            List<String> command = new ArrayList<>(List.of("git", "-C", PROJECT_ROOT.toString()));
            command.addAll(List.of(args));
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.waitFor() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** When the benchmarked service jars were built (the harness runs them from the modules' target/ folders). */
    private static String jarsBuilt() {
        List<FileTime> times = new ArrayList<>();
        for (Service service : Service.values()) {
            try {
                times.add(Files.getLastModifiedTime(
                        PROJECT_ROOT.resolve(service.module()).resolve("target/quarkus-app/quarkus-run.jar")));
            } catch (IOException e) {
                return "?";
            }
        }
        times.sort(null);
        return "built " + times.get(0).toInstant().truncatedTo(ChronoUnit.SECONDS) + " … "
                + times.get(times.size() - 1).toInstant().truncatedTo(ChronoUnit.SECONDS) + " (UTC)";
    }

    /** JVMs on the machine that are neither this one nor its children: other people's work. */
    private static long otherJvms() {
        Set<Long> ours = new HashSet<>();
        ours.add(ProcessHandle.current().pid());
        ProcessHandle.current().descendants().forEach(p -> ours.add(p.pid()));
        ProcessHandle.current().parent().ifPresent(p -> ours.add(p.pid()));
        return ProcessHandle.allProcesses()
                .filter(p -> !ours.contains(p.pid()))
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .count();
    }
}
