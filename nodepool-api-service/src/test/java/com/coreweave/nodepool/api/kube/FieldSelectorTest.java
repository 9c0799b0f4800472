package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FieldSelectorTest {

    static final Set<String> EVENTS = CoreEvents.SELECTABLE;

    @Test
    void shouldMatchWhatDescribeAsksOfEventsWithAnEmptyNamespace() {
        FieldSelector selector = FieldSelector.parse(
                "involvedObject.kind=NodePool,involvedObject.name=p,"
                        + "involvedObject.namespace=,involvedObject.uid=u-1",
                EVENTS);

        assertThat(selector.test(Map.of(
                        "involvedObject.kind", "NodePool", "involvedObject.name", "p", "involvedObject.uid", "u-1")))
                .isTrue();
        assertThat(selector.test(Map.of(
                        "involvedObject.kind", "NodePool", "involvedObject.name", "p", "involvedObject.uid", "u-2")))
                .isFalse();
    }

    @Test
    void shouldSupportDoubleEqualsAndNotEquals() {
        FieldSelector selector = FieldSelector.parse("type==Warning,reason!=CWOverQuota", EVENTS);

        assertThat(selector.test(Map.of("type", "Warning", "reason", "CWInsufficientCapacity")))
                .isTrue();
        assertThat(selector.test(Map.of("type", "Warning", "reason", "CWOverQuota")))
                .isFalse();
    }

    @Test
    void shouldRefuseAFieldTheResourceCannotBeSelectedBy() {
        assertThatThrownBy(() -> FieldSelector.parse("spec.targetNodes=2", Set.of("metadata.name")))
                .hasMessage("field label not supported: spec.targetNodes");
        assertThatThrownBy(() -> FieldSelector.parse("metadata.name", Set.of("metadata.name")))
                .hasMessageContaining("expected field=value");
    }

    @Test
    void shouldMatchEverythingWhenEmpty() {
        assertThat(FieldSelector.parse(null, EVENTS).test(Map.of())).isTrue();
    }
}
