package com.coreweave.nodepool.kit.reads;

import jakarta.ws.rs.NotFoundException;
import java.util.List;
import java.util.Map;

/** What another instance asks of a read: the decoded path segments after the read's name, and the query. */
public record PeerRequest(List<String> segments, Map<String, List<String>> query) {

    public PeerRequest {
        segments = List.copyOf(segments);
        query = Map.copyOf(query);
    }

    /** Whether the path has {@code count} segments after the read's name. */
    public boolean has(int count) {
        return segments.size() == count;
    }

    /** Segment {@code index}. */
    public String segment(int index) {
        return segments.get(index);
    }

    /** Refuses a path of another shape with the 404 JAX-RS gives a path no method matches. */
    public PeerRequest expect(int count) {
        if (!has(count)) {
            throw new NotFoundException();
        }
        return this;
    }

    /** The first value of query parameter {@code name}, or null. */
    public String param(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    /** Query parameter {@code name} as an int, 0 when absent; not a number is a 404, as JAX-RS answers an int param. */
    public int intParam(String name) {
        String value = param(name);
        if (value == null) {
            return 0;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new NotFoundException();
        }
    }
}
