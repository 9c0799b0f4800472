package com.coreweave.nodepool.provisioner.domain.model;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a pool remembers for its disruption budgets, bounded whatever the pool's size: when its latest voluntary
 * disruptions started (for {@code maxPerWindow}, at most {@link #MAX_STARTS}), how many nodes remediation or a user
 * removed whose replacement is not Ready yet ({@code replacing}), what each reason last had held back (so a held-back
 * disruption is reported once, not at every reconcile), and when a budget may next let one go ({@code wakeAt}).
 */
public record DisruptionLog(List<Start> starts, int replacing, Map<DisruptionReason, String> held, Instant wakeAt) {

    /** As many starts as the largest {@code maxPerWindow} the schema allows. */
    static final int MAX_STARTS = 100;

    public static final DisruptionLog EMPTY = new DisruptionLog(List.of(), 0, Map.of(), null);

    /** One disruption started. */
    public record Start(DisruptionReason reason, Instant at) {}

    public DisruptionLog {
        starts = starts == null ? List.of() : List.copyOf(starts);
        held = held == null ? Map.of() : new TreeMap<>(held);
    }

    public DisruptionLog withReplacing(int next) {
        return new DisruptionLog(starts, Math.max(0, next), held, wakeAt);
    }

    public DisruptionLog started(DisruptionReason reason, Instant at) {
        List<Start> next = new ArrayList<>(starts);
        next.add(new Start(reason, at));
        return new DisruptionLog(
                next.subList(Math.max(0, next.size() - MAX_STARTS), next.size()), replacing, held, wakeAt);
    }

    /** Forgets the starts before {@code oldest}: no budget's window reaches them any more. */
    public DisruptionLog since(Instant oldest) {
        return new DisruptionLog(
                starts.stream().filter(s -> !s.at().isBefore(oldest)).toList(), replacing, held, wakeAt);
    }

    public DisruptionLog withHeld(DisruptionReason reason, String message) {
        Map<DisruptionReason, String> next = new TreeMap<>(held);
        if (message == null) {
            next.remove(reason);
        } else {
            next.put(reason, message);
        }
        return new DisruptionLog(starts, replacing, next, wakeAt);
    }

    public DisruptionLog wakingAt(Instant next) {
        return new DisruptionLog(starts, replacing, held, next);
    }
}
