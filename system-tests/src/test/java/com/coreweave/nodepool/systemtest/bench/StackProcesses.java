package com.coreweave.nodepool.systemtest.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The child processes of this JVM by component (the broker, the five services, the baseline chain), recognised by their
 * command lines, and what Linux says about their memory. On a cluster a component has several processes (three brokers,
 * two instances of each service).
 */
final class StackProcesses {

    static final String KAFKA = "kafka";
    static final String BASELINE = "baseline";
    static final List<String> SERVICES = List.of(
            "nodepool-api-service", "quota-service", "capacity-service", "provisioner-service", "preemption-service");

    private StackProcesses() {}

    /** Each running child that is a component, by component name, ordered by pid. */
    static Map<String, List<ProcessHandle>> byComponent() {
        Map<String, List<ProcessHandle>> found = new LinkedHashMap<>();
        ProcessHandle.current()
                .children()
                .sorted(Comparator.comparingLong(ProcessHandle::pid))
                .forEach(child -> {
                    String name = component(commandLine(child));
                    if (name != null) {
                        found.computeIfAbsent(name, n -> new ArrayList<>()).add(child);
                    }
                });
        return found;
    }

    /** {resident, peak resident} memory of a process in bytes (VmRSS, VmHWM), or {-1, -1} when unknown. */
    static long[] residentBytes(ProcessHandle process) {
        long[] memory = {-1, -1};
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    memory[0] = kib(line) * 1024;
                } else if (line.startsWith("VmHWM:")) {
                    memory[1] = kib(line) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the process is gone: unknown
        }
        return memory;
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("\\D", ""));
    }

    private static String component(String command) {
        if (command.contains("LocalKafkaMain")) {
            return KAFKA;
        }
        if (command.contains(BaselineChain.class.getName())) {
            return BASELINE;
        }
        for (String name : SERVICES) {
            if (command.contains(name + "/target/quarkus-app")) {
                return name;
            }
        }
        return null;
    }

    /** The full command line (ProcessHandle.Info cuts long ones, and the broker's classpath is long). */
    private static String commandLine(ProcessHandle process) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", String.valueOf(process.pid()), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException | RuntimeException e) {
            return process.info().commandLine().orElse("");
        }
    }
}
