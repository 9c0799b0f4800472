package com.coreweave.nodepool.systemtest.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where the CPU went during a phase: CPU time of each child process of this JVM (the broker, the five services and the
 * baseline chain), of this JVM itself, and of the whole machine (Linux {@code /proc/stat}), so that what other
 * processes on the machine used shows too. Figures are seconds of CPU.
 */
final class CpuMeter {

    static final String BENCHMARK = "benchmark";
    static final List<String> COMPONENTS = components();
    /** The product: what "CPU per pool" adds up. */
    static final List<String> STACK = stack();

    private static final double JIFFIES_PER_SECOND = 100.0;

    /**
     * CPU seconds used so far: per component (and which process it was), and by the whole machine (NaN where unknown).
     */
    record Snapshot(
            long atNanos,
            Map<String, Double> seconds,
            Map<String, List<Long>> pids,
            double machineBusy,
            double machineTotal) {}

    /** What a phase used: wall seconds, CPU seconds per component, the machine's busy CPU seconds. */
    record Usage(
            String phase,
            double wall,
            Map<String, Double> seconds,
            double machineBusy,
            double machineCapacity,
            double load1) {

        double ours() {
            return of(COMPONENTS);
        }

        /** CPU seconds of these components together. */
        double of(Collection<String> components) {
            return components.stream()
                    .mapToDouble(c -> seconds.getOrDefault(c, 0.0))
                    .sum();
        }
    }

    private CpuMeter() {}

    static Snapshot snapshot() {
        Map<String, Double> seconds = new LinkedHashMap<>();
        Map<String, List<Long>> pids = new LinkedHashMap<>();
        COMPONENTS.forEach(c -> seconds.put(c, 0.0));
        StackProcesses.byComponent().forEach((name, processes) -> {
            seconds.put(
                    name,
                    processes.stream()
                            .mapToDouble(process -> process.info()
                                    .totalCpuDuration()
                                    .map(d -> d.toNanos() / 1e9)
                                    .orElse(0.0))
                            .sum());
            pids.put(name, processes.stream().map(ProcessHandle::pid).toList());
        });
        seconds.put(
                BENCHMARK,
                ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
                                .getProcessCpuTime()
                        / 1e9);
        double[] machine = machine();
        return new Snapshot(System.nanoTime(), seconds, pids, machine[0], machine[1]);
    }

    /**
     * What was used between two snapshots, summed over a component's processes. A component restarted in between counts
     * its new processes only: what the old one used after {@code from} is gone with it.
     */
    static Usage between(String phase, Snapshot from, Snapshot to) {
        Map<String, Double> used = new LinkedHashMap<>();
        to.seconds()
                .forEach((name, cpu) -> used.put(
                        name,
                        Objects.equals(from.pids().get(name), to.pids().get(name))
                                ? cpu - from.seconds().getOrDefault(name, 0.0)
                                : cpu));
        return new Usage(
                phase,
                (to.atNanos() - from.atNanos()) / 1e9,
                used,
                to.machineBusy() - from.machineBusy(),
                to.machineTotal() - from.machineTotal(),
                loadAverage()[0]);
    }

    /** {busy, total} CPU seconds of all cores since boot, from /proc/stat; NaN elsewhere. */
    private static double[] machine() {
        try {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(cpu.length, 9); i++) {
                total += Long.parseLong(cpu[i]);
            }
            long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
            return new double[] {(total - idle) / JIFFIES_PER_SECOND, total / JIFFIES_PER_SECOND};
        } catch (IOException | RuntimeException e) {
            return new double[] {Double.NaN, Double.NaN};
        }
    }

    /** The 1, 5 and 15 minute load averages (NaN where unknown). */
    static double[] loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return new double[] {
                Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2])
            };
        } catch (IOException | RuntimeException e) {
            double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return new double[] {one, Double.NaN, Double.NaN};
        }
    }

    private static List<String> stack() {
        List<String> stack = new ArrayList<>(List.of(StackProcesses.KAFKA));
        stack.addAll(StackProcesses.SERVICES);
        return List.copyOf(stack);
    }

    private static List<String> components() {
        List<String> all = new ArrayList<>(stack());
        all.addAll(List.of(StackProcesses.BASELINE, BENCHMARK));
        return List.copyOf(all);
    }
}
