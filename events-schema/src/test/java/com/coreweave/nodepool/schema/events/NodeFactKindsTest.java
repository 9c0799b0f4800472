package com.coreweave.nodepool.schema.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Json;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import java.time.Instant;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class NodeFactKindsTest {

    @Test
    void everyKindIsNamedAsItsRecordSoReadersCanAskForKindsByType() {
        JsonSubTypes.Type[] types =
                NodeFact.class.getAnnotation(JsonSubTypes.class).value();

        assertThat(types)
                .allSatisfy(t -> assertThat(t.name()).isEqualTo(t.value().getSimpleName()));
        assertThat(Arrays.stream(types).map(JsonSubTypes.Type::value).toList())
                .as("every record of the sealed hierarchy has a kind")
                .containsExactlyInAnyOrderElementsOf(records(NodeFact.class).toList());
    }

    @Test
    void theKindIsWrittenFirst() {
        var fact = new NodeFact.NodePoolReconciled(
                new PoolRef("demo", "train", "uid-1", 1, "US-EAST-04A", "gd-8xa100-i128", "default"),
                1,
                1,
                0,
                0,
                null,
                null,
                null,
                false,
                false,
                false,
                null,
                Instant.parse("2026-11-24T10:00:00Z"));

        assertThat(Json.string(fact)).startsWith("{\"" + NodeFact.KIND + "\":\"NodePoolReconciled\"");
        assertThat(NodeFact.kinds(NodeFact.NodeRemoved.class)).containsExactly("NodeRemoved");
    }

    private static Stream<Class<?>> records(Class<?> type) {
        return type.isInterface()
                ? Arrays.stream(type.getPermittedSubclasses()).flatMap(NodeFactKindsTest::records)
                : Stream.of(type);
    }
}
