package com.coreweave.nodepool.kit.audit;

import com.coreweave.nodepool.kit.audit.AuditEvent.ResponseStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Summarizes a flood of refusals: the first refusal of a caller for a reason in an interval is recorded whole, the rest
 * of that interval are only counted, and one summary event per caller and reason says how many there were. At most
 * {@link #MAX_CALLERS} callers and reasons are counted at once; the refusals of any more are counted together under
 * {@link #OTHERS}. Not thread-safe: its owner serializes calls.
 */
public final class RefusalTally {

    /** How long one summary covers. */
    public static final Duration INTERVAL = Duration.ofSeconds(10);

    static final int MAX_CALLERS = 1_000;
    static final String OTHERS = "system:other-callers";

    /** Annotations of a summary event. */
    public static final String SUMMARIZED = AuditEvents.ANNOTATION_PREFIX + "summarized-refusals";

    public static final String SUMMARY_FROM = AuditEvents.ANNOTATION_PREFIX + "summary-from";
    public static final String SUMMARY_TO = AuditEvents.ANNOTATION_PREFIX + "summary-to";

    private final Duration interval;
    private final Map<String, Count> counts = new LinkedHashMap<>();
    private Instant started;

    public RefusalTally() {
        this(INTERVAL);
    }

    public RefusalTally(Duration interval) {
        this.interval = interval;
    }

    /** Whether anything waits to be summarized (the owner may stop its timer while not). */
    public boolean idle() {
        return counts.isEmpty();
    }

    /**
     * Whether {@code refusal} (an event whose answer is a refusal, with {@code caller} as who made it) is recorded
     * whole; false when it was counted for the interval's summary instead.
     */
    public boolean admit(String caller, AuditEvent refusal, Instant now) {
        if (started == null) {
            started = now;
        }
        String key = caller + "\n" + reason(refusal);
        Count count = counts.get(key);
        if (count == null) {
            if (counts.size() >= MAX_CALLERS) {
                key = OTHERS + "\n" + reason(refusal);
                count = counts.computeIfAbsent(key, k -> new Count(refusal, now, true));
            } else {
                counts.put(key, new Count(refusal, now, false));
                return true;
            }
        }
        count.more++;
        count.last = now;
        return false;
    }

    /**
     * The summaries of the interval once it has passed (each caller and reason with refusals counted but not recorded),
     * and a new interval; nothing while it has not.
     */
    public List<AuditEvent> due(Instant now, String auditIdPrefix) {
        if (started == null || now.isBefore(started.plus(interval))) {
            return List.of();
        }
        List<AuditEvent> summaries = new ArrayList<>();
        for (Count count : counts.values()) {
            if (count.more > 0) {
                summaries.add(count.summary(started, now, auditIdPrefix + "-" + summaries.size()));
            }
        }
        counts.clear();
        started = null;
        return summaries;
    }

    private static String reason(AuditEvent event) {
        ResponseStatus status = event.responseStatus();
        return status == null ? "" : status.code() + " " + status.reason();
    }

    /** The first refusal of a caller for a reason in the interval, and how many more followed. */
    private static final class Count {
        private final AuditEvent first;
        private final boolean others;
        private int more;
        private Instant last;

        Count(AuditEvent first, Instant at, boolean others) {
            this.first = first;
            this.last = at;
            this.others = others;
        }

        /** An event like the first refusal, saying how many more there were and over which time. */
        AuditEvent summary(Instant from, Instant to, String auditId) {
            ResponseStatus status = first.responseStatus();
            Map<String, String> annotations = new TreeMap<>();
            if (first.annotations() != null) {
                annotations.putAll(first.annotations());
            }
            annotations.put(SUMMARIZED, Integer.toString(more));
            annotations.put(SUMMARY_FROM, AuditEvents.timestamp(from));
            annotations.put(SUMMARY_TO, AuditEvents.timestamp(to));
            String who = others ? "callers beyond the first " + MAX_CALLERS : "the same caller";
            return AuditBounds.bounded(new AuditEvent(
                    first.kind(),
                    first.apiVersion(),
                    first.level(),
                    auditId,
                    first.stage(),
                    first.requestURI(),
                    first.verb(),
                    others ? new AuditEvent.User(OTHERS, List.of()) : first.user(),
                    first.sourceIPs(),
                    first.userAgent(),
                    first.objectRef(),
                    new ResponseStatus(
                            status == null ? 0 : status.code(),
                            "Failure",
                            status == null ? null : status.reason(),
                            more + " more refused like this one by " + who + " between "
                                    + AuditEvents.timestamp(from) + " and " + AuditEvents.timestamp(last)
                                    + ", not recorded one by one"),
                    AuditEvents.timestamp(from),
                    AuditEvents.timestamp(to),
                    annotations));
        }
    }
}
