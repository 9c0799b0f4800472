package com.coreweave.nodepool.api.kube;

import java.util.ArrayList;
import java.util.List;

/**
 * The resourceVersion of a list or a watch bookmark: how far the API's live feed had read each partition of the topic
 * the resource comes from ({@code nodepool-status} for pools, {@code nodepool-events} for events), as {@code L<offset
 * of partition 0>.<offset of partition 1>...}. A watch from it replays every change after those positions; an object's
 * own resourceVersion names no position and is refused with 410 Gone, so the client lists again, as Kubernetes clients
 * do on 410.
 */
public record ListVersion(List<Long> offsets) {

    private static final String PREFIX = "L";

    public static ListVersion of(List<Long> offsets) {
        return new ListVersion(List.copyOf(offsets));
    }

    /** The version {@code text} names, or null when it is not a list version of {@code partitions} partitions. */
    public static ListVersion parse(String text, int partitions) {
        if (text == null || !text.startsWith(PREFIX)) {
            return null;
        }
        String[] parts = text.substring(PREFIX.length()).split("\\.");
        if (parts.length != partitions) {
            return null;
        }
        List<Long> offsets = new ArrayList<>();
        for (String part : parts) {
            try {
                long offset = Long.parseLong(part);
                if (offset < 0) {
                    return null;
                }
                offsets.add(offset);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return new ListVersion(List.copyOf(offsets));
    }

    @Override
    public String toString() {
        return PREFIX + String.join(".", offsets.stream().map(String::valueOf).toList());
    }
}
