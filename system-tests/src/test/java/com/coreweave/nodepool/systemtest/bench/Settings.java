package com.coreweave.nodepool.systemtest.bench;

import java.util.Arrays;
import java.util.List;

/** The benchmarks' sizes and choices, from {@code -Dbench.<name>=<value>} (docs/benchmarks.md lists them). */
final class Settings {

    private Settings() {}

    static int integer(String name, int fallback) {
        return Integer.parseInt(text(name, String.valueOf(fallback)).trim());
    }

    static String text(String name, String fallback) {
        return System.getProperty("bench." + name, fallback);
    }

    static List<String> list(String name, String fallback) {
        return Arrays.stream(text(name, fallback).split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    static List<Integer> integers(String name, String fallback) {
        return list(name, fallback).stream().map(Integer::valueOf).toList();
    }

    /** The {@code -Dbench.*} sizes this run was given (not where it writes): a run with any is not "as shipped". */
    static List<String> overrides() {
        return System.getProperties().stringPropertyNames().stream()
                .filter(p -> p.startsWith("bench."))
                .filter(p -> !p.equals("bench.output-dir"))
                .sorted()
                .map(p -> p + "=" + System.getProperty(p))
                .toList();
    }
}
