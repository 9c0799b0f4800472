package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A pool's Event as the core v1 Event that {@code kubectl describe} and {@code get events} read. */
class CoreEventsTest {

    private static final String POOL_UID = "9311678d-4064-45b8-8439-b943250e5852";

    @Test
    void shouldPlaceTheEventInTheDefaultNamespaceWithAStableUid() {
        // when
        Event core = CoreEvents.of(aboutPool("example-nodepool.1849a3b0"));
        Event again = CoreEvents.of(aboutPool("example-nodepool.1849a3b0"));
        Event other = CoreEvents.of(aboutPool("example-nodepool.1849a3b1"));
        // then
        assertThat(core.getMetadata().getNamespace()).isEqualTo("default");
        assertThat(core.getMetadata().getUid())
                .isNotBlank()
                .isEqualTo(again.getMetadata().getUid());
        assertThat(other.getMetadata().getUid()).isNotEqualTo(core.getMetadata().getUid());
    }

    @Test
    void shouldDateTheEventFromItsFirstOccurrence() {
        Event core = CoreEvents.of(aboutPool("example-nodepool.1"));

        assertThat(core.getMetadata().getCreationTimestamp()).isEqualTo("2025-06-09T14:00:00Z");
    }

    @Test
    void shouldKeepThePoolsUidOnAnEventAboutAPool() {
        Event core = CoreEvents.of(aboutPool("example-nodepool.1"));

        assertThat(core.getInvolvedObject().getUid()).isEqualTo(POOL_UID);
        assertThat(core.getReason()).isEqualTo("CWNodePoolScaled");
    }

    @Test
    void shouldNameANodeByItsNameInPlaceOfAUidAsTheKubeletDoes() {
        Event core = CoreEvents.of(aboutNode("g1a2b3c.1"));

        assertThat(core.getInvolvedObject().getUid()).isEqualTo("g1a2b3c");
        assertThat(core.getInvolvedObject().getKind()).isEqualTo("Node");
    }

    @Test
    void shouldNotChangeTheEventItWasGiven() {
        Event original = aboutNode("g1a2b3c.1");

        CoreEvents.of(original);

        assertThat(original.getMetadata().getNamespace()).isNull();
        assertThat(original.getInvolvedObject().getUid()).isEqualTo("node-uid");
    }

    @Test
    void shouldOfferEverySelectableFieldWithTheEventsValues() {
        // when
        Map<String, String> fields = CoreEvents.fields(aboutPool("example-nodepool.1"));
        // then
        assertThat(fields.keySet()).isEqualTo(CoreEvents.SELECTABLE);
        assertThat(fields)
                .containsEntry("metadata.name", "example-nodepool.1")
                .containsEntry("metadata.namespace", "default")
                .containsEntry("involvedObject.kind", "NodePool")
                .containsEntry("involvedObject.name", "example-nodepool")
                .containsEntry("involvedObject.uid", POOL_UID)
                .containsEntry("involvedObject.apiVersion", "compute.coreweave.com/v1alpha1")
                .containsEntry("reason", "CWNodePoolScaled")
                .containsEntry("type", "Normal")
                .containsEntry("source", "nodepool-api-service")
                .containsEntry("reportingComponent", "nodepool-api-service");
    }

    @Test
    void shouldOfferEmptyValuesForWhatTheEventDoesNotSay() {
        // given an event with no type, reason or reporter
        Event sparse = new EventBuilder()
                .withNewMetadata()
                .withName("sparse.1")
                .endMetadata()
                .withNewInvolvedObject()
                .withKind("NodePool")
                .endInvolvedObject()
                .withNewSource()
                .endSource()
                .build();
        // when
        Map<String, String> fields = CoreEvents.fields(sparse);
        // then
        assertThat(fields)
                .containsEntry("reason", "")
                .containsEntry("type", "")
                .containsEntry("source", "")
                .containsEntry("involvedObject.name", "")
                .containsEntry("involvedObject.uid", "");
    }

    private static Event aboutPool(String name) {
        return base(name)
                .withNewInvolvedObject()
                .withApiVersion("compute.coreweave.com/v1alpha1")
                .withKind("NodePool")
                .withName("example-nodepool")
                .withUid(POOL_UID)
                .endInvolvedObject()
                .build();
    }

    private static Event aboutNode(String name) {
        return base(name)
                .withNewInvolvedObject()
                .withApiVersion("v1")
                .withKind("Node")
                .withName("g1a2b3c")
                .withUid("node-uid")
                .endInvolvedObject()
                .build();
    }

    private static EventBuilder base(String name) {
        return new EventBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withReason("CWNodePoolScaled")
                .withType("Normal")
                .withReportingComponent("nodepool-api-service")
                .withNewSource()
                .withComponent("nodepool-api-service")
                .endSource()
                .withFirstTimestamp("2025-06-09T14:00:00Z")
                .withLastTimestamp("2025-06-09T14:10:00Z");
    }
}
