package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
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
 * adding another. Bounded per pool, oldest dropped first.
 */
public final class EventFolder {

  static final int MAX_EVENTS = 200;
  static final int MAX_SEEN_IDS = 2000;

  private EventFolder() {
  }

  /** The pool's events after {@code recorded}, and the Event it created or updated (null for a replay). */
  public record Folded(PoolEvents events, Event changed) {
  }

  public static Folded fold(PoolEvents current, RecordedEvent recorded) {
    if (current.seenIds().contains(recorded.id())) {
      return new Folded(current, null);
    }
    List<Event> events = new ArrayList<>(current.events());
    String at = recorded.at().truncatedTo(ChronoUnit.SECONDS).toString();
    Event changed = null;
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      if (sameKind(e, recorded)) {
        changed = new EventBuilder(e).withCount(e.getCount() + 1).withLastTimestamp(at).build();
        events.remove(i);
        break;
      }
    }
    if (changed == null) {
      ObjectReference about = recorded.involvedObject();
      changed = new EventBuilder()
          .withNewMetadata().withName(recorded.pool() + "." + shortHash(recorded.id())).endMetadata()
          .withNewInvolvedObject().withApiVersion(about.apiVersion()).withKind(about.kind()).withName(about.name())
            .withUid(about.uid()).endInvolvedObject()
          .withReason(recorded.reason()).withMessage(recorded.message()).withType(recorded.type()).withCount(1)
          .withFirstTimestamp(at).withLastTimestamp(at)
          .withNewSource().withComponent(recorded.component()).endSource()
          .withReportingComponent(recorded.component())
          .build();
    }
    events.add(changed);
    while (events.size() > MAX_EVENTS) {
      events.remove(0);
    }
    List<String> seen = new ArrayList<>(current.seenIds());
    seen.add(recorded.id());
    while (seen.size() > MAX_SEEN_IDS) {
      seen.remove(0);
    }
    return new Folded(new PoolEvents(events, seen), changed);
  }

  private static boolean sameKind(Event event, RecordedEvent recorded) {
    return Objects.equals(event.getReason(), recorded.reason())
        && Objects.equals(event.getMessage(), recorded.message())
        && Objects.equals(event.getInvolvedObject().getKind(), recorded.involvedObject().kind())
        && Objects.equals(event.getInvolvedObject().getName(), recorded.involvedObject().name());
  }

  private static String shortHash(String id) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
