package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static com.coreweave.nodepool.api.domain.Fixtures.NOW_SECONDS;
import static com.coreweave.nodepool.api.domain.Fixtures.POOL;
import static com.coreweave.nodepool.api.domain.Fixtures.UID;
import static com.coreweave.nodepool.api.domain.Fixtures.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.api.domain.EventFolder.Folded;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodePool;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventFolderTest {

    private static final String QUEUED = "2 node(s) queued awaiting capacity.";

    /** An event about the pool, caused by {@code cause} (which makes its id). */
    private static RecordedEvent poolEvent(String cause, CwEvent event, String message, Instant at) {
        return RecordedEvent.ofPool(ref(), event, message, cause, "capacity-service", at);
    }

    private static RecordedEvent queued(String cause, Instant at) {
        return poolEvent(cause, CwEvent.CWNodeRequestQueued, QUEUED, at);
    }

    private static RecordedEvent nodeEvent(String node, String cause) {
        return RecordedEvent.ofNode(
                ref(), node, CwEvent.PreemptionPending, "Node will be preempted.", cause, "preemption-service", NOW);
    }

    private static PoolEvents foldAll(RecordedEvent... events) {
        PoolEvents current = PoolEvents.EMPTY;
        for (RecordedEvent event : events) {
            current = EventFolder.fold(current, event).events();
        }
        return current;
    }

    @Test
    void aFirstEventBecomesAKubernetesEventWithCountOne() {
        RecordedEvent recorded = queued("c-1", NOW);

        Folded folded = EventFolder.fold(PoolEvents.EMPTY, recorded);

        Event event = folded.changed();
        assertThat(folded.events().events()).containsExactly(event);
        assertThat(event.getApiVersion()).isEqualTo("v1");
        assertThat(event.getKind()).isEqualTo("Event");
        assertThat(event.getMetadata().getName()).matches(POOL + "\\.[0-9a-f]{16}");
        assertThat(event.getInvolvedObject())
                .extracting(r -> r.getApiVersion(), r -> r.getKind(), r -> r.getName(), r -> r.getUid())
                .containsExactly(NodePool.API_VERSION, NodePool.KIND, POOL, UID);
        assertThat(event.getReason()).isEqualTo("CWNodeRequestQueued");
        assertThat(event.getType()).isEqualTo(CwEvent.NORMAL);
        assertThat(event.getMessage()).isEqualTo(QUEUED);
        assertThat(event.getCount()).isEqualTo(1);
        assertThat(event.getFirstTimestamp()).isEqualTo(NOW_SECONDS.toString());
        assertThat(event.getLastTimestamp()).isEqualTo(NOW_SECONDS.toString());
        assertThat(event.getSource().getComponent()).isEqualTo("capacity-service");
        assertThat(event.getReportingComponent()).isEqualTo("capacity-service");
        assertThat(folded.events().seenIds())
                .as("kept as a short hash")
                .singleElement()
                .asString()
                .hasSize(16);
    }

    @Test
    void theEventIsWrittenAsTheOneAKubernetesClientBuildsWithTheSameFields() {
        RecordedEvent recorded = queued("c-1", NOW);
        Event first = EventFolder.fold(PoolEvents.EMPTY, recorded).changed();
        Event repeat = EventFolder.fold(foldAll(recorded), queued("c-2", NOW.plusSeconds(30)))
                .changed();

        Event built = new EventBuilder()
                .withNewMetadata()
                .withName(first.getMetadata().getName())
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(NodePool.API_VERSION)
                .withKind(NodePool.KIND)
                .withName(POOL)
                .withUid(UID)
                .endInvolvedObject()
                .withReason("CWNodeRequestQueued")
                .withMessage(QUEUED)
                .withType(CwEvent.NORMAL)
                .withCount(1)
                .withFirstTimestamp(NOW_SECONDS.toString())
                .withLastTimestamp(NOW_SECONDS.toString())
                .withNewSource()
                .withComponent("capacity-service")
                .endSource()
                .withReportingComponent("capacity-service")
                .build();
        assertThat(Json.string(first)).isEqualTo(Json.string(built));
        assertThat(Json.string(repeat))
                .isEqualTo(Json.string(new EventBuilder(built)
                        .withCount(2)
                        .withLastTimestamp(NOW_SECONDS.plusSeconds(30).toString())
                        .build()));
    }

    @Test
    void aRepeatedEventRaisesTheCountOfOneEvent() {
        PoolEvents first = foldAll(queued("c-1", NOW));

        Folded repeat = EventFolder.fold(first, queued("c-2", NOW.plusSeconds(30)));

        assertThat(repeat.events().events()).singleElement().isEqualTo(repeat.changed());
        Event event = repeat.changed();
        assertThat(event.getCount()).isEqualTo(2);
        assertThat(event.getFirstTimestamp()).isEqualTo(NOW_SECONDS.toString());
        assertThat(event.getLastTimestamp())
                .isEqualTo(NOW_SECONDS.plusSeconds(30).toString());
        assertThat(event.getMetadata().getName())
                .as("the same Event")
                .isEqualTo(first.events().get(0).getMetadata().getName());
    }

    @Test
    void aReplayedRecordIsNotCountedAgain() {
        RecordedEvent recorded = queued("c-1", NOW);
        PoolEvents once = foldAll(recorded);

        Folded replay = EventFolder.fold(once, recorded);

        assertThat(replay.changed()).as("nothing to publish").isNull();
        assertThat(replay.events()).isSameAs(once);
        assertThat(once.events().get(0).getCount()).isEqualTo(1);
    }

    @Test
    void anotherMessageIsAnotherEvent() {
        PoolEvents events = foldAll(
                queued("c-1", NOW),
                poolEvent("c-2", CwEvent.CWNodeRequestQueued, "3 node(s) queued awaiting capacity.", NOW));

        assertThat(events.events())
                .extracting(Event::getMessage, Event::getCount)
                .containsExactly(tuple(QUEUED, 1), tuple("3 node(s) queued awaiting capacity.", 1));
    }

    @Test
    void anotherReasonWithTheSameMessageIsAnotherEvent() {
        PoolEvents events = foldAll(queued("c-1", NOW), poolEvent("c-2", CwEvent.CWInsufficientCapacity, QUEUED, NOW));

        assertThat(events.events())
                .extracting(Event::getReason)
                .containsExactly("CWNodeRequestQueued", "CWInsufficientCapacity");
    }

    @Test
    void theSameEventAboutTwoNodesIsTwoEvents() {
        PoolEvents events = foldAll(nodeEvent("n-1", "r-1"), nodeEvent("n-2", "r-1"), nodeEvent("n-1", "r-2"));

        assertThat(events.events())
                .extracting(e -> e.getInvolvedObject().getName(), Event::getCount)
                .containsExactlyInAnyOrder(tuple("n-2", 1), tuple("n-1", 2));
        assertThat(events.events()).extracting(Event::getReason).containsOnly("Preemption pending");
        assertThat(events.events()).extracting(Event::getType).containsOnly(CwEvent.WARNING);
    }

    @Test
    void aRepeatedEventMovesToTheNewestPlace() {
        PoolEvents events = foldAll(
                queued("c-1", NOW),
                poolEvent("c-2", CwEvent.CWNodeAssigned, "Node n-1 assigned.", NOW),
                queued("c-3", NOW.plusSeconds(5)));

        assertThat(events.events())
                .extracting(Event::getReason)
                .containsExactly("CWNodeAssigned", "CWNodeRequestQueued");
    }

    @Test
    void aPoolKeepsAtMostTwoHundredEventsDroppingTheOldest() {
        PoolEvents events = PoolEvents.EMPTY;
        for (int i = 0; i <= EventFolder.MAX_EVENTS; i++) {
            events = EventFolder.fold(
                            events, poolEvent("c-" + i, CwEvent.CWNodeAssigned, "Node n-" + i + " assigned.", NOW))
                    .events();
        }

        assertThat(events.events()).hasSize(200);
        assertThat(events.events().get(0).getMessage()).isEqualTo("Node n-1 assigned.");
        assertThat(events.events().get(199).getMessage()).isEqualTo("Node n-200 assigned.");
    }

    @Test
    void theIdsRememberedForReplaysAreBoundedOldestForgottenFirst() {
        PoolEvents events = PoolEvents.EMPTY;
        for (int i = 0; i <= EventFolder.MAX_SEEN_IDS; i++) {
            events = EventFolder.fold(events, queued("c-" + i, NOW)).events();
        }

        assertThat(events.seenIds()).hasSize(2000);
        assertThat(events.events()).singleElement().extracting(Event::getCount).isEqualTo(2001);
        assertThat(EventFolder.fold(events, queued("c-1", NOW)).changed())
                .as("a replay still remembered")
                .isNull();
        assertThat(EventFolder.fold(events, queued("c-0", NOW)).changed())
                .as("the oldest id, forgotten")
                .isNotNull();
    }

    @Test
    void aViewKeptWithWholeIdsStillKnowsTheirReplays() {
        RecordedEvent recorded = queued("c-1", NOW);
        PoolEvents before = new PoolEvents(
                EventFolder.fold(PoolEvents.EMPTY, recorded).events().events(), List.of(recorded.id()));

        assertThat(EventFolder.fold(before, recorded).changed()).isNull();
    }

    @Test
    void longMessagesKeepFewerEventsSoAPoolsEventsStaySmall() {
        PoolEvents events = PoolEvents.EMPTY;
        for (int i = 0; i < EventFolder.MAX_EVENTS; i++) {
            events = EventFolder.fold(
                            events,
                            poolEvent("c-" + i, CwEvent.CWNodePoolNodesRequestFailed, i + " " + "x".repeat(1_000), NOW))
                    .events();
        }

        assertThat(events.events().size()).isLessThan(EventFolder.MAX_EVENTS);
        assertThat(Json.bytes(events).length).isLessThan(EventFolder.MAX_EVENT_BYTES + 64 * 1024);
        assertThat(events.events().get(events.events().size() - 1).getMessage()).startsWith("199 ");
    }

    @Test
    void theFoldLeavesTheEventsItWasGivenUnchanged() {
        PoolEvents before = foldAll(queued("c-1", NOW));

        EventFolder.fold(before, queued("c-2", NOW));

        assertThat(before.events()).singleElement().extracting(Event::getCount).isEqualTo(1);
        assertThat(before.seenIds()).hasSize(1);
    }
}
