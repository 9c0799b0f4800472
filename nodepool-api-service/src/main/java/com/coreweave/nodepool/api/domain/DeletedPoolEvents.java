package com.coreweave.nodepool.api.domain;

import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The Events of a deleted pool, kept for a while after it is gone, as Kubernetes keeps an object's Events for an hour
 * whatever becomes of the object: {@code kubectl get events} after {@code kubectl delete nodepool} still shows its
 * history. Stored under {@code <org>/<pool>/<uid>}, so a pool created again under the same name has Events of its own.
 * As bounded as the pool's Events were ({@link EventFolder}); the ids of the recorded events are not kept, since no
 * more are folded in.
 */
public record DeletedPoolEvents(Instant deletedAt, List<Event> events) {

    /** How many deleted pools one task keeps Events of at most: beyond it, the longest gone are forgotten first. */
    public static final int MAX_DELETED_POOLS = 2000;

    public static DeletedPoolEvents of(PoolEvents events, Instant deletedAt) {
        return new DeletedPoolEvents(deletedAt, List.copyOf(events.events()));
    }

    /** The key a deleted pool's Events are kept under: its pool key and its uid. */
    public static String key(String poolKey, String uid) {
        return poolKey + "/" + uid;
    }

    /** These Events as a pool's, for the readers of live pools' Events. */
    public PoolEvents asPoolEvents() {
        return new PoolEvents(events, List.of());
    }

    /**
     * The keys of {@code kept} to forget at {@code now}: those deleted {@code retention} ago or longer, and, beyond
     * {@code max} left, the longest gone.
     */
    public static List<String> forgotten(
            Map<String, DeletedPoolEvents> kept, Instant now, Duration retention, int max) {
        Instant cutoff = now.minus(retention);
        List<String> forgotten = new ArrayList<>();
        List<Map.Entry<String, DeletedPoolEvents>> left = new ArrayList<>();
        kept.entrySet().forEach(e -> {
            if (e.getValue().deletedAt().isAfter(cutoff)) {
                left.add(e);
            } else {
                forgotten.add(e.getKey());
            }
        });
        if (left.size() > max) {
            left.sort(Comparator.comparing((Map.Entry<String, DeletedPoolEvents> e) ->
                            e.getValue().deletedAt())
                    .thenComparing(Map.Entry::getKey));
            left.subList(0, left.size() - max).forEach(e -> forgotten.add(e.getKey()));
        }
        return forgotten;
    }
}
