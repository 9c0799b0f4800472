package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.anyJson;
import static com.coreweave.nodepool.schema.resource.Statuses.DUPLICATE;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_MANY;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested.Action;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import org.assertj.core.api.ListAssert;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class NodeConfigurationBodyTest {

    private static NodeConfigurationBody read(Action action, String json) {
        return NodeConfigurationBody.read(action, json == null ? null : anyJson(json));
    }

    private static ListAssert<Tuple> causes(Action action, String json) {
        return assertThat(read(action, json).causes().stream()
                .map(c -> tuple(c.getReason(), c.getField()))
                .toList());
    }

    @ParameterizedTest
    @EnumSource(
            value = Action.class,
            names = {"Upgrade", "Reconfigure"})
    void upgradeAndReconfigureNeedNoBody(Action action) {
        NodeConfigurationBody body = read(action, null);

        assertThat(body.causes()).isEmpty();
        assertThat(body.nodeProfile()).isNull();
        assertThat(body.nodes()).isEmpty();
        assertThat(read(action, "{}").causes()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Action.class)
    void aBodyThatIsNotAnObjectIsOneCauseOnTheWholeBody(Action action) {
        causes(action, "[\"n-1\"]").containsExactly(tuple(TYPE_INVALID, ""));
    }

    @Nested
    class Upgrade {

        @Test
        void anyFieldIsUnknown() {
            causes(Action.Upgrade, "{\"nodeProfile\": \"np-1\", \"nodes\": []}")
                    .containsExactly(tuple(INVALID, "nodeProfile"), tuple(INVALID, "nodes"));
        }
    }

    @Nested
    class Rollback {

        @Test
        void namesTheRevisionToRollBackTo() {
            NodeConfigurationBody body = read(Action.Rollback, "{\"nodeProfile\": \"np-3f2a9c01\"}");

            assertThat(body.causes()).isEmpty();
            assertThat(body.nodeProfile()).isEqualTo("np-3f2a9c01");
            assertThat(body.nodes()).isEmpty();
        }

        @ParameterizedTest
        @ValueSource(strings = {"{}", "{\"nodeProfile\": null}", "{\"nodeProfile\": \"  \"}"})
        void needsANodeProfile(String json) {
            causes(Action.Rollback, json).containsExactly(tuple(REQUIRED, "nodeProfile"));
        }

        @Test
        void needsABody() {
            causes(Action.Rollback, null).containsExactly(tuple(REQUIRED, "nodeProfile"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"42", "true", "[\"np-1\"]", "{\"name\": \"np-1\"}"})
        void theNodeProfileIsAString(String value) {
            causes(Action.Rollback, "{\"nodeProfile\": " + value + "}")
                    .containsExactly(tuple(TYPE_INVALID, "nodeProfile"));
        }

        @Test
        void theNodeProfileHasAtMost63Characters() {
            causes(Action.Rollback, "{\"nodeProfile\": \"" + "p".repeat(63) + "\"}")
                    .isEmpty();
            causes(Action.Rollback, "{\"nodeProfile\": \"" + "p".repeat(64) + "\"}")
                    .containsExactly(tuple(TOO_LONG, "nodeProfile"));
        }

        @Test
        void everyBadFieldIsReportedAtOnce() {
            causes(Action.Rollback, "{\"nodeProfile\": 1, \"nodes\": [], \"force\": true}")
                    .containsExactly(
                            tuple(TYPE_INVALID, "nodeProfile"), tuple(INVALID, "nodes"), tuple(INVALID, "force"));
        }
    }

    @Nested
    class Reconfigure {

        @Test
        void namesTheNodesToReconfigureInOrder() {
            NodeConfigurationBody body = read(Action.Reconfigure, "{\"nodes\": [\"n-2\", \"n-1\"]}");

            assertThat(body.causes()).isEmpty();
            assertThat(body.nodes()).containsExactly("n-2", "n-1");
            assertThat(body.nodeProfile()).isNull();
        }

        @ParameterizedTest
        @ValueSource(strings = {"{\"nodes\": []}", "{\"nodes\": null}"})
        void anEmptyOrNullListMeansEveryOutdatedNode(String json) {
            NodeConfigurationBody body = read(Action.Reconfigure, json);

            assertThat(body.causes()).isEmpty();
            assertThat(body.nodes()).isEmpty();
        }

        @ParameterizedTest
        @ValueSource(strings = {"\"n-1\"", "{\"n-1\": true}", "3"})
        void nodesIsAList(String value) {
            causes(Action.Reconfigure, "{\"nodes\": " + value + "}").containsExactly(tuple(TYPE_INVALID, "nodes"));
        }

        @Test
        void eachNodeIsANonBlankStringNamedOnce() {
            causes(Action.Reconfigure, "{\"nodes\": [\"n-1\", 7, \"\", \"n-1\", null]}")
                    .containsExactly(
                            tuple(TYPE_INVALID, "nodes[1]"),
                            tuple(REQUIRED, "nodes[2]"),
                            tuple(DUPLICATE, "nodes[3]"),
                            tuple(TYPE_INVALID, "nodes[4]"));
        }

        @Test
        void otherFieldsAreUnknown() {
            causes(Action.Reconfigure, "{\"nodeProfile\": \"np-1\"}").containsExactly(tuple(INVALID, "nodeProfile"));
        }

        @Test
        void namesAtMostAsManyNodesAsAPoolHas() {
            ArrayNode nodes = Json.mapper().createArrayNode();
            for (int i = 0; i < Limits.MAX_TARGET_NODES; i++) {
                nodes.add("n-" + i);
            }
            assertThat(NodeConfigurationBody.read(
                                    Action.Reconfigure,
                                    Json.mapper().createObjectNode().set("nodes", nodes))
                            .nodes())
                    .hasSize(Limits.MAX_TARGET_NODES);

            nodes.add("n-" + Limits.MAX_TARGET_NODES);
            NodeConfigurationBody body = NodeConfigurationBody.read(
                    Action.Reconfigure, Json.mapper().createObjectNode().set("nodes", nodes));
            assertThat(body.causes())
                    .extracting(StatusCause::getReason, StatusCause::getField, StatusCause::getMessage)
                    .containsExactly(tuple(TOO_MANY, "nodes", "Too many: 5001: must have at most 5000 items"));
        }

        @Test
        void aNodeNameHasAtMost253Characters() {
            causes(Action.Reconfigure, "{\"nodes\": [\"" + "n".repeat(253) + "\"]}")
                    .isEmpty();
            causes(Action.Reconfigure, "{\"nodes\": [\"" + "n".repeat(254) + "\"]}")
                    .containsExactly(tuple(TOO_LONG, "nodes[0]"));
        }

        @Test
        void aHundredThousandBadNamesAreAHundredCausesAndACount() {
            ArrayNode nodes = Json.mapper().createArrayNode();
            for (int i = 0; i < 100_000; i++) {
                nodes.add(i);
            }

            NodeConfigurationBody body = NodeConfigurationBody.read(
                    Action.Reconfigure, Json.mapper().createObjectNode().set("nodes", nodes));

            assertThat(body.causes()).hasSize(Limits.MAX_CAUSES + 1);
            assertThat(body.causes().get(Limits.MAX_CAUSES).getMessage()).isEqualTo("and 99901 more");
        }
    }

    @Nested
    class RequestId {

        private static final PoolKey POOL = new PoolKey("acme", "example-nodepool");

        @Test
        void theSameIdempotencyKeyGivesTheSameId() {
            assertThat(NodeConfigurationBody.requestId(POOL, Action.Rollback, "k-1"))
                    .isEqualTo(NodeConfigurationBody.requestId(POOL, Action.Rollback, "k-1"));
        }

        @Test
        void theIdDependsOnPoolActionAndKey() {
            String id = NodeConfigurationBody.requestId(POOL, Action.Rollback, "k-1");

            assertThat(id)
                    .isNotEqualTo(NodeConfigurationBody.requestId(POOL, Action.Rollback, "k-2"))
                    .isNotEqualTo(NodeConfigurationBody.requestId(POOL, Action.Upgrade, "k-1"))
                    .isNotEqualTo(
                            NodeConfigurationBody.requestId(new PoolKey("acme", "other-pool"), Action.Rollback, "k-1"))
                    .isNotEqualTo(NodeConfigurationBody.requestId(
                            new PoolKey("other", "example-nodepool"), Action.Rollback, "k-1"));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", " "})
        void withoutAnIdempotencyKeyEveryRequestIsNew(String blank) {
            assertThat(NodeConfigurationBody.requestId(POOL, Action.Upgrade, null))
                    .isNotEqualTo(NodeConfigurationBody.requestId(POOL, Action.Upgrade, null))
                    .isNotEqualTo(NodeConfigurationBody.requestId(POOL, Action.Upgrade, blank));
        }
    }
}
