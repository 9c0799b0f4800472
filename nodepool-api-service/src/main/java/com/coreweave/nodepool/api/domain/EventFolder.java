package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * Folds recorded events into Kubernetes Events the way the event recorder of Kubernetes does: a repeat of the same
 * reason and message about the same object raises {@code count} and {@code lastTimestamp} of one Event instead of
 * adding another. Bounded per pool, oldest dropped first: at most {@value #MAX_EVENTS} Events of at most
 * {@value #MAX_EVENT_BYTES} bytes together, and the last {@value #MAX_SEEN_IDS} recorded ids, each kept as a short hash
 * (the ids of node events are a hundred characters, and the view that holds them must stay small).
 */
public final class EventFolder {

    static final int MAX_EVENTS = 200;
    /** Roughly what the Events weigh as JSON; a message is at most 1,024 characters (RecordedEvent). */
    static final int MAX_EVENT_BYTES = 128 * 1024;

    static final int MAX_SEEN_IDS = 2000;
    /** One digest per thread: looking one up costs more than hashing an id. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    private EventFolder() {}

    /** The pool's events after {@code recorded}, and the Event it created or updated (null for a replay). */
    public record Folded(PoolEvents events, Event changed) {}

    public static Folded fold(PoolEvents current, RecordedEvent recorded) {
        String seenAs = shortHash(recorded.id());
        // A view kept from before ids were hashed holds them whole.
        if (current.seenIds().contains(seenAs) || current.seenIds().contains(recorded.id())) {
            return new Folded(current, null);
        }
        List<Event> events = new ArrayList<>(current.events());
        String at = recorded.at().truncatedTo(ChronoUnit.SECONDS).toString();
        Event changed = null;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            if (sameKind(e, recorded)) {
                changed = repeated(e, at);
                events.remove(i);
                break;
            }
        }
        if (changed == null) {
            changed = first(recorded, at);
        }
        events.add(changed);
        int bytes = events.stream().mapToInt(EventFolder::weight).sum();
        while (events.size() > MAX_EVENTS || bytes > MAX_EVENT_BYTES) {
            bytes -= weight(events.remove(0));
        }
        List<String> seen = new ArrayList<>(current.seenIds());
        seen.add(seenAs);
        while (seen.size() > MAX_SEEN_IDS) {
            seen.remove(0);
        }
        return new Folded(new PoolEvents(events, seen), changed);
    }

    private static boolean sameKind(Event event, RecordedEvent recorded) {
        return Objects.equals(event.getReason(), recorded.reason())
                && Objects.equals(event.getMessage(), recorded.message())
                && Objects.equals(
                        event.getInvolvedObject().getKind(),
                        recorded.involvedObject().kind())
                && Objects.equals(
                        event.getInvolvedObject().getName(),
                        recorded.involvedObject().name());
    }

    /**
     * The Event a recorded event starts as. Built with setters, not fabric8's builders: folding is on the path of every
     * fact, and the builders cost several times as much.
     */
    private static Event first(RecordedEvent recorded, String at) {
        ObjectReference about = recorded.involvedObject();
        ObjectMeta metadata = new ObjectMeta();
        metadata.setName(recorded.pool() + "." + shortHash(recorded.id()));
        io.fabric8.kubernetes.api.model.ObjectReference involved =
                new io.fabric8.kubernetes.api.model.ObjectReference();
        involved.setApiVersion(about.apiVersion());
        involved.setKind(about.kind());
        involved.setName(about.name());
        involved.setUid(about.uid());
        EventSource source = new EventSource();
        source.setComponent(recorded.component());
        Event event = new Event();
        event.setMetadata(metadata);
        event.setInvolvedObject(involved);
        event.setReason(recorded.reason());
        event.setMessage(recorded.message());
        event.setType(recorded.type());
        event.setCount(1);
        event.setFirstTimestamp(at);
        event.setLastTimestamp(at);
        event.setSource(source);
        event.setReportingComponent(recorded.component());
        return event;
    }

    /**
     * {@code event} once more at {@code at}; it shares the parts that do not change (Events here are never mutated).
     */
    private static Event repeated(Event event, String at) {
        Event next = new Event();
        next.setMetadata(event.getMetadata());
        next.setInvolvedObject(event.getInvolvedObject());
        next.setReason(event.getReason());
        next.setMessage(event.getMessage());
        next.setType(event.getType());
        next.setCount(event.getCount() + 1);
        next.setFirstTimestamp(event.getFirstTimestamp());
        next.setLastTimestamp(at);
        next.setSource(event.getSource());
        next.setReportingComponent(event.getReportingComponent());
        return next;
    }

    /** About what an Event weighs as JSON: its texts and names, and the rest of its fields. */
    private static int weight(Event event) {
        return 300
                + length(event.getMessage())
                + length(event.getReason())
                + length(event.getInvolvedObject().getName())
                + length(event.getMetadata().getName());
    }

    private static int length(String text) {
        return text == null ? 0 : text.length();
    }

    private static String shortHash(String id) {
        byte[] digest = SHA_256.get().digest(id.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 8);
    }
}
