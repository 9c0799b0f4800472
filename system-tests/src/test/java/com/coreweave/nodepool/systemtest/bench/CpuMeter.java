package com.coreweave.nodepool.systemtest.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the CPU went during a phase: CPU time of each child process of this JVM (the broker and the five services
 * the harness started), of this JVM itself, and of the whole machine (Linux {@code /proc/stat}), so that what other
 * processes on the machine used shows too. Figures are seconds of CPU.
 */
final class CpuMeter {

  static final List<String> COMPONENTS = List.of("kafka", "nodepool-api-service", "quota-service",
      "capacity-service", "provisioner-service", "preemption-service", "benchmark");
  private static final double JIFFIES_PER_SECOND = 100.0;

  /** CPU seconds used so far: per component, and by the whole machine (NaN where unknown). */
  record Snapshot(long atNanos, Map<String, Double> seconds, double machineBusy, double machineTotal) {
  }

  /** What a phase used: wall seconds, CPU seconds per component, the machine's busy CPU seconds. */
  record Usage(String phase, double wall, Map<String, Double> seconds, double machineBusy, double machineCapacity,
               double load1) {

    double ours() {
      return seconds.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  static Snapshot snapshot() {
    Map<String, Double> seconds = new LinkedHashMap<>();
    COMPONENTS.forEach(c -> seconds.put(c, 0.0));
    ProcessHandle.current().children().forEach(child -> {
      String command = commandLine(child);
      String name = component(command);
      if (name != null) {
        double cpu = child.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
        seconds.merge(name, cpu, Double::sum);
      }
    });
    seconds.put("benchmark", ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
        .getProcessCpuTime() / 1e9);
    double[] machine = machine();
    return new Snapshot(System.nanoTime(), seconds, machine[0], machine[1]);
  }

  static Usage between(String phase, Snapshot from, Snapshot to) {
    Map<String, Double> used = new LinkedHashMap<>();
    to.seconds().forEach((name, cpu) -> used.put(name, cpu - from.seconds().getOrDefault(name, 0.0)));
    return new Usage(phase, (to.atNanos() - from.atNanos()) / 1e9, used, to.machineBusy() - from.machineBusy(),
        to.machineTotal() - from.machineTotal(), loadAverage()[0]);
  }

  /** The full command line (ProcessHandle.Info cuts long ones, and the broker's classpath is long). */
  private static String commandLine(ProcessHandle process) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", String.valueOf(process.pid()), "cmdline"));
      return new String(raw, java.nio.charset.StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException | RuntimeException e) {
      return process.info().commandLine().orElse("");
    }
  }

  private static String component(String command) {
    if (command.contains("LocalKafkaMain")) {
      return "kafka";
    }
    for (String name : COMPONENTS) {
      if (command.contains(name + "/target/quarkus-app")) {
        return name;
      }
    }
    return null;
  }

  /** {busy, total} CPU seconds of all cores since boot, from /proc/stat; NaN elsewhere. */
  private static double[] machine() {
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
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
      return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2])};
    } catch (IOException | RuntimeException e) {
      double one = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return new double[] {one, Double.NaN, Double.NaN};
    }
  }
}
