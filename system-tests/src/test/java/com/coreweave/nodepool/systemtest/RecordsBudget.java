package com.coreweave.nodepool.systemtest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The records one operation on a pool may write to the broker, per topic and in total, as {@code records-budget.txt}
 * lists them: lines {@code <operation> <topic> <records> # <reason>}, one {@code <operation> total <records>} each.
 */
final class RecordsBudget {

    static final String TOTAL = "total";

    /** operation → topic (or {@link #TOTAL}) → records. */
    private final Map<String, Map<String, Long>> allowed;

    private RecordsBudget(Map<String, Map<String, Long>> allowed) {
        this.allowed = allowed;
    }

    /** Reads the file's text; a line without a reason, or a topic listed twice, is refused. */
    static RecordsBudget parse(String text) {
        Map<String, Map<String, Long>> allowed = new LinkedHashMap<>();
        int number = 0;
        for (String line : text.split("\n", -1)) {
            number++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            int hash = trimmed.indexOf('#');
            String[] fields =
                    (hash < 0 ? trimmed : trimmed.substring(0, hash)).strip().split("\\s+");
            if (fields.length != 3) {
                throw new IllegalArgumentException("line " + number + ": want <operation> <topic> <records>: " + line);
            }
            if (hash < 0 && !fields[1].equals(TOTAL)) {
                throw new IllegalArgumentException("line " + number + ": a topic's budget needs its reason: " + line);
            }
            Long before =
                    allowed.computeIfAbsent(fields[0], o -> new TreeMap<>()).put(fields[1], Long.parseLong(fields[2]));
            if (before != null) {
                throw new IllegalArgumentException("line " + number + ": " + fields[1] + " is listed twice");
            }
        }
        return new RecordsBudget(allowed);
    }

    /**
     * What {@code written} (topic → records of one {@code operation}) exceeds: every topic over its budget (a topic not
     * listed has none), and the total over its budget; empty when it is within.
     */
    List<String> overruns(String operation, Map<String, Long> written) {
        Map<String, Long> budget = allowed.getOrDefault(operation, Map.of());
        List<String> overruns = new ArrayList<>();
        new TreeMap<>(written).forEach((topic, records) -> {
            long allowedRecords = budget.getOrDefault(topic, 0L);
            if (records > allowedRecords) {
                overruns.add("%s %s: %d records, budget %d".formatted(operation, topic, records, allowedRecords));
            }
        });
        long total = written.values().stream().mapToLong(Long::longValue).sum();
        long allowedTotal = budget.getOrDefault(TOTAL, 0L);
        if (total > allowedTotal) {
            overruns.add("%s total: %d records, budget %d".formatted(operation, total, allowedTotal));
        }
        return overruns;
    }

    /** The total of {@code operation}, so a run far below it says the budget should come down. */
    long total(String operation) {
        return allowed.getOrDefault(operation, Map.of()).getOrDefault(TOTAL, 0L);
    }
}
