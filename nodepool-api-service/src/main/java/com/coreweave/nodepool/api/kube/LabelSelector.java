package com.coreweave.nodepool.api.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes label selector ({@code ?labelSelector=}): comma-separated requirements {@code k=v}, {@code k==v},
 * {@code k!=v}, {@code k}, {@code !k}, {@code k in (a,b)}, {@code k notin (a,b)}; all must hold.
 */
public final class LabelSelector implements Predicate<Map<String, String>> {

    private final List<Predicate<Map<String, String>>> requirements;

    private LabelSelector(List<Predicate<Map<String, String>>> requirements) {
        this.requirements = requirements;
    }

    /** Parses a selector; throws {@link IllegalArgumentException} saying what is wrong. */
    public static LabelSelector parse(String selector) {
        List<Predicate<Map<String, String>>> requirements = new ArrayList<>();
        if (selector == null || selector.isBlank()) {
            return new LabelSelector(requirements);
        }
        for (String term : split(selector)) {
            String t = term.trim();
            if (t.isEmpty()) {
                throw new IllegalArgumentException("empty requirement in label selector \"" + selector + "\"");
            }
            requirements.add(requirement(t));
        }
        return new LabelSelector(requirements);
    }

    private static Predicate<Map<String, String>> requirement(String t) {
        Matcher set =
                Pattern.compile("([^\\s!=(),]+)\\s+(in|notin)\\s+\\(([^)]*)\\)").matcher(t);
        if (set.matches()) {
            String key = set.group(1);
            Set<String> values = Set.copyOf(List.of(set.group(3).split("\\s*,\\s*")).stream()
                    .map(String::trim)
                    .toList());
            // A pool without the label is not "in" any set, and is "notin" every set.
            return set.group(2).equals("in")
                    ? labels -> labels.containsKey(key) && values.contains(labels.get(key))
                    : labels -> !labels.containsKey(key) || !values.contains(labels.get(key));
        }
        if (t.contains("!=")) {
            String[] kv = t.split("!=", 2);
            String key = key(kv[0], t);
            return labels -> !kv[1].trim().equals(labels.get(key));
        }
        if (t.contains("=")) {
            String[] kv = t.split("==?", 2);
            String key = key(kv[0], t);
            return labels -> kv[1].trim().equals(labels.get(key));
        }
        if (t.startsWith("!")) {
            String key = key(t.substring(1), t);
            return labels -> !labels.containsKey(key);
        }
        if (!t.matches("[^\\s!=(),]+")) {
            throw new IllegalArgumentException("cannot parse label selector requirement \"" + t + "\"");
        }
        return labels -> labels.containsKey(t);
    }

    private static String key(String raw, String requirement) {
        String key = raw.trim();
        if (key.isEmpty() || !key.matches("[^\\s!=(),]+")) {
            throw new IllegalArgumentException("requirement \"" + requirement + "\" has no valid label key");
        }
        return key;
    }

    /** Splits on commas outside parentheses. */
    private static List<String> split(String selector) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : selector.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString());
        return parts;
    }

    @Override
    public boolean test(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        return requirements.stream().allMatch(r -> r.test(l));
    }
}
