package com.coreweave.nodepool.api.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A Kubernetes field selector ({@code ?fieldSelector=}): comma-separated {@code field=value}, {@code field==value} or
 * {@code field!=value}, all of which must hold. Each resource names the fields it can be selected by; any other field
 * is an error, as the API server answers. An empty value matches an empty or absent field.
 */
public final class FieldSelector implements Predicate<Map<String, String>> {

    private record Term(String field, String value, boolean equal) {}

    private final List<Term> terms;

    private FieldSelector(List<Term> terms) {
        this.terms = terms;
    }

    /** Parses {@code selector} against the fields a resource supports; throws {@link IllegalArgumentException}. */
    public static FieldSelector parse(String selector, Set<String> supported) {
        List<Term> terms = new ArrayList<>();
        if (selector == null || selector.isBlank()) {
            return new FieldSelector(terms);
        }
        for (String raw : selector.split(",")) {
            String term = raw.trim();
            boolean equal = !term.contains("!=");
            String[] parts = equal ? term.split("==?", 2) : term.split("!=", 2);
            if (parts.length != 2 || parts[0].isBlank()) {
                throw new IllegalArgumentException(
                        "invalid field selector term \"" + term + "\": expected field=value");
            }
            String field = parts[0].trim();
            if (!supported.contains(field)) {
                throw new IllegalArgumentException("field label not supported: " + field);
            }
            terms.add(new Term(field, parts[1].trim(), equal));
        }
        return new FieldSelector(terms);
    }

    @Override
    public boolean test(Map<String, String> fields) {
        return terms.stream().allMatch(t -> t.value().equals(fields.getOrDefault(t.field(), "")) == t.equal());
    }
}
