package com.coreweave.nodepool.systemtest.bench;

import static com.coreweave.nodepool.systemtest.bench.Phases.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * JDK Flight Recorder on every service and the broker during one phase ({@code -Dbench.profile=true}), started and
 * dumped with {@code jcmd}, and the top frames of each as the report shows them: where the CPU of that phase went.
 */
final class Profiles {

    /** Frames of our code: the first of them on a stack says which of our steps the sample was in. */
    private static final String OURS = "com.coreweave.";

    private static final String RECORDING = "bench-profile";

    private final Path dir;
    private final Map<String, Long> pids = new LinkedHashMap<>();
    /** component → {"self" or "ours"} → frame → samples. */
    private final Map<String, Map<String, Map<String, Integer>>> frames = new LinkedHashMap<>();

    private final Map<String, Integer> samples = new LinkedHashMap<>();

    Profiles(Path dir) {
        this.dir = dir;
    }

    /** Starts a recording in every service and broker process (the first instance of each). */
    void start() throws Exception {
        Files.createDirectories(dir);
        StackProcesses.byComponent().forEach((component, processes) -> {
            if (!component.equals(StackProcesses.BASELINE)) {
                pids.put(component, processes.get(0).pid());
            }
        });
        for (var entry : pids.entrySet()) {
            jcmd(entry.getValue(), "JFR.start", "name=" + RECORDING, "settings=profile");
        }
    }

    /** Stops the recordings, writes them beside the stack's logs and reads their execution samples. */
    void stop() throws Exception {
        for (var entry : pids.entrySet()) {
            Path file = dir.resolve(entry.getKey() + ".jfr");
            jcmd(entry.getValue(), "JFR.stop", "name=" + RECORDING, "filename=" + file);
            read(entry.getKey(), file);
        }
        log("profiles in " + dir);
    }

    private void read(String component, Path file) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> ours = new HashMap<>();
        int count = 0;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                RecordedStackTrace stack = event.getStackTrace();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample")
                        || stack == null
                        || stack.getFrames().isEmpty()) {
                    continue;
                }
                count++;
                self.merge(name(stack.getFrames().get(0)), 1, Integer::sum);
                stack.getFrames().stream()
                        .filter(f -> f.getMethod().getType().getName().startsWith(OURS))
                        .findFirst()
                        .ifPresent(f -> ours.merge(name(f), 1, Integer::sum));
            }
        }
        samples.put(component, count);
        frames.put(component, Map.of("self", self, "ours", ours));
    }

    private static String name(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "."
                + frame.getMethod().getName();
    }

    /** Per process: the top {@code n} frames by samples on top of the stack, and by the first of our frames. */
    String section(int n) {
        StringBuilder md = new StringBuilder();
        samples.forEach((component, count) -> {
            md.append("\n**").append(component).append("** (").append(count).append(" execution samples)\n\n");
            md.append("| top of stack (self) | share | first frame of ours | share |\n| --- | ---: | --- | ---: |\n");
            List<Map.Entry<String, Integer>> self = top(frames.get(component).get("self"), n);
            List<Map.Entry<String, Integer>> ours = top(frames.get(component).get("ours"), n);
            for (int i = 0; i < Math.max(self.size(), ours.size()); i++) {
                md.append("| ")
                        .append(cell(self, i, count))
                        .append(" | ")
                        .append(cell(ours, i, count))
                        .append(" |\n");
            }
        });
        return md.toString();
    }

    boolean ran() {
        return !samples.isEmpty();
    }

    private static List<Map.Entry<String, Integer>> top(Map<String, Integer> counts, int n) {
        List<Map.Entry<String, Integer>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()));
        return sorted.subList(0, Math.min(n, sorted.size()));
    }

    private static String cell(List<Map.Entry<String, Integer>> entries, int i, int count) {
        if (i >= entries.size()) {
            return " | ";
        }
        var entry = entries.get(i);
        return "`" + entry.getKey() + "` | "
                + String.format(Locale.ROOT, "%.1f %%", 100.0 * entry.getValue() / Math.max(1, count));
    }

    private static void jcmd(long pid, String... command) throws Exception {
        List<String> args = new ArrayList<>();
        args.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        args.add(String.valueOf(pid));
        args.addAll(List.of(command));
        Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            log("jcmd " + String.join(" ", command) + " on " + pid + " failed: " + output);
        }
    }
}
