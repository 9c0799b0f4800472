package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.KEY;
import static com.coreweave.nodepool.api.domain.Fixtures.at;
import static com.coreweave.nodepool.api.domain.Fixtures.json;
import static com.coreweave.nodepool.api.domain.Fixtures.manifest;
import static com.coreweave.nodepool.schema.topics.Rejection.Code.INVALID_CLOUD_EVENT;
import static com.coreweave.nodepool.schema.topics.Rejection.Code.INVALID_SPEC;
import static com.coreweave.nodepool.schema.topics.Rejection.Code.KEY_MISMATCH;
import static com.coreweave.nodepool.schema.topics.Rejection.Code.MALFORMED_JSON;
import static com.coreweave.nodepool.schema.topics.Rejection.Code.UNSUPPORTED_TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Rejection.Code;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestReaderTest {

    private final RequestReader reader = new RequestReader();

    /** A well-formed {@code NodePoolRequested} CloudEvent for {@value Fixtures#KEY}, to break one thing in. */
    private static ObjectNode event(String operation, ObjectNode nodePool) {
        ObjectNode event = json("""
        {"specversion": "1.0", "id": "req-1", "source": "platform/team-a", "type": "NodePoolRequested",
         "subject": "acme/example-nodepool", "time": "2025-06-09T14:48:54.5Z",
         "datacontenttype": "application/json"}
        """);
        event.putObject("data").put("operation", operation).set("nodePool", nodePool);
        return event;
    }

    private static ObjectNode apply() {
        return event("APPLY", manifest());
    }

    private static byte[] bytes(ObjectNode event) {
        return Json.bytes(event);
    }

    private PoolRequest read(ObjectNode event) {
        return reader.read(KEY, bytes(event), null);
    }

    private Rejection rejection(String key, byte[] value) {
        Rejection rejection = catchThrowableOfType(Rejection.class, () -> reader.read(key, value, null));
        assertThat(rejection).as("the record is rejected").isNotNull();
        return rejection;
    }

    private Rejection rejection(ObjectNode event) {
        return rejection(KEY, bytes(event));
    }

    @Nested
    class Accepted {

        @Test
        void readsAnApplyRequestWithEverythingTheProcessorNeeds() {
            byte[] raw = bytes(apply());

            PoolRequest request = reader.read(KEY, raw, null);

            assertThat(request.id()).isEqualTo("req-1");
            assertThat(request.source()).isEqualTo("platform/team-a");
            assertThat(request.key()).isEqualTo(new PoolKey("acme", "example-nodepool"));
            assertThat(request.operation()).isEqualTo(Operation.APPLY);
            assertThat(request.time()).isEqualTo(Instant.parse("2025-06-09T14:48:54.5Z"));
            assertThat(request.manifest().name()).isEqualTo("example-nodepool");
            assertThat(request.manifest().spec().instanceType()).isEqualTo("gd-8xa100-i128");
            assertThat(request.manifest().spec().targetNodes()).isEqualTo(1);
            assertThat(request.raw())
                    .as("kept unchanged for the dead-letter topic")
                    .isSameAs(raw);
            assertThat(request.fromRest()).isFalse();
        }

        @Test
        void readsADeleteThatNamesOnlyThePoolAndItsPreconditions() {
            ObjectNode event = event("DELETE", json("""
          {"metadata": {"name": "example-nodepool", "resourceVersion": "42", "uid": "u-1"}}
          """));

            PoolRequest request = read(event);

            assertThat(request.operation()).isEqualTo(Operation.DELETE);
            assertThat(request.manifest().name()).isEqualTo("example-nodepool");
            assertThat(request.manifest().metadata().resourceVersion()).isEqualTo("42");
            assertThat(request.manifest().metadata().uid()).isEqualTo("u-1");
            assertThat(request.manifest().spec()).isNull();
        }

        @Test
        void aDeleteDoesNotLookAtTheSpec() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec").put("targetNodes", -5).put("colour", "blue");

            assertThat(read(event("DELETE", manifest)).operation()).isEqualTo(Operation.DELETE);
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"CREATE", "REPLACE"})
        void readsTheOperationsTheRestApiWrites(String operation) {
            ObjectNode event = event(operation, manifest());
            event.put("source", PoolRequest.REST_SOURCE);

            PoolRequest request = read(event);

            assertThat(request.operation()).isEqualTo(Operation.valueOf(operation));
            assertThat(request.fromRest()).isTrue();
        }

        @Test
        void aRequestFromAnOrgsOwnTopicKeepsItsOrgAndIsNotRest() {
            PoolRequest request = reader.read(KEY, bytes(apply()), "acme");

            assertThat(request.tenantOrg()).isEqualTo("acme");
            assertThat(request.source()).isEqualTo("platform/team-a");
            assertThat(request.fromRest()).isFalse();
        }

        @Test
        void theTimeAndContentTypeAreOptional() {
            ObjectNode event = apply();
            event.remove("time");
            event.remove("datacontenttype");

            assertThat(read(event).time()).isNull();
        }

        @Test
        void aJsonContentTypeWithParametersIsAccepted() {
            ObjectNode event = apply();
            event.put("datacontenttype", "application/json; charset=utf-8");

            assertThat(read(event).id()).isEqualTo("req-1");
        }

        @Test
        void aTimeWithAnOffsetIsReadAsAnInstant() {
            ObjectNode event = apply();
            event.put("time", "2025-06-09T16:48:54+02:00");

            assertThat(read(event).time()).isEqualTo(Instant.parse("2025-06-09T14:48:54Z"));
        }
    }

    @Nested
    class Envelope {

        @Test
        void shouldRejectAnOrgsTopicRequestClaimingTheRestSourceAsForbidden() {
            ObjectNode event = apply();
            event.put("source", PoolRequest.REST_SOURCE);

            Rejection rejection = catchThrowableOfType(Rejection.class, () -> reader.read(KEY, bytes(event), "acme"));

            assertThat(rejection).as("the record is rejected").isNotNull();
            assertThat(rejection.code()).isEqualTo(Code.FORBIDDEN);
            assertThat(rejection.reason())
                    .isEqualTo("source nodepool-api-service/rest is the API's own; a tenant topic cannot use it");
        }

        @Test
        void shouldRejectARecordWithoutAValue() {
            assertThat(rejection(KEY, null).code()).isEqualTo(Code.VALUE_MISSING);
        }

        @Test
        void shouldRejectMalformedJson() {
            Rejection rejection = rejection(KEY, "{\"specversion\": \"1.0\",".getBytes(StandardCharsets.UTF_8));

            assertThat(rejection.code()).isEqualTo(MALFORMED_JSON);
            assertThat(rejection.reason()).startsWith("value is not JSON").doesNotContain("\n");
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"[]", "\"NodePoolRequested\"", "42", "null"})
        void shouldRejectJsonThatIsNotAnObject(String value) {
            assertThat(rejection(KEY, value.getBytes(StandardCharsets.UTF_8)).code())
                    .isEqualTo(INVALID_CLOUD_EVENT);
        }

        @ParameterizedTest(name = "specversion {0}")
        @ValueSource(strings = {"absent", "\"0.3\"", "1.0", "\"\""})
        void shouldRejectASpecversionOtherThan1Point0(String value) {
            ObjectNode event = apply();
            if (value.equals("absent")) {
                event.remove("specversion");
            } else {
                event.set("specversion", Fixtures.anyJson(value));
            }

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(INVALID_CLOUD_EVENT);
            assertThat(rejection.reason()).contains("specversion");
        }

        @ParameterizedTest(name = "{0} {1}")
        @CsvSource({
            "id, absent",
            "id, blank",
            "id, number",
            "source, absent",
            "source, blank",
            "type, absent",
            "subject, absent",
            "subject, blank"
        })
        void shouldRejectAMissingRequiredAttribute(String attribute, String how) {
            ObjectNode event = apply();
            switch (how) {
                case "absent" -> event.remove(attribute);
                case "blank" -> event.put(attribute, "  ");
                default -> event.put(attribute, 7);
            }

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(INVALID_CLOUD_EVENT);
            assertThat(rejection.reason()).isEqualTo(attribute + " is required and must be a non-empty string");
        }

        @Test
        void shouldRejectAnotherEventTypeAsUnsupported() {
            ObjectNode event = apply();
            event.put("type", "com.coreweave.NodePoolDeleted");

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(UNSUPPORTED_TYPE);
            assertThat(rejection.reason()).contains("NodePoolRequested", "com.coreweave.NodePoolDeleted");
        }

        @ParameterizedTest(name = "time {0}")
        @ValueSource(strings = {"yesterday", "2025-06-09 14:48:54", "2025-06-09T14:48:54"})
        void shouldRejectATimeThatIsNotRfc3339(String time) {
            ObjectNode event = apply();
            event.put("time", time);

            assertThat(rejection(event).code()).isEqualTo(INVALID_CLOUD_EVENT);
        }

        @ParameterizedTest(name = "datacontenttype {0}")
        @ValueSource(strings = {"application/yaml", "text/plain", "application/xml"})
        void shouldRejectDataThatIsNotJson(String contentType) {
            ObjectNode event = apply();
            event.put("datacontenttype", contentType);

            assertThat(rejection(event).code()).isEqualTo(INVALID_CLOUD_EVENT);
        }
    }

    @Nested
    class Key {

        @Test
        void shouldRejectASubjectThatIsNotTheRecordKey() {
            ObjectNode event = apply();
            event.put("subject", "acme/other-pool");

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(KEY_MISMATCH);
            assertThat(rejection.reason()).contains("acme/example-nodepool", "acme/other-pool");
        }

        @Test
        void shouldRejectARecordWithoutAKey() {
            assertThat(rejection(null, bytes(apply())).code()).isEqualTo(Code.KEY_MISSING);
        }

        @ParameterizedTest(name = "key \"{0}\"")
        @ValueSource(strings = {"example-nodepool", "acme/example-nodepool/x", "/example-nodepool", "acme/"})
        void shouldRejectAKeyThatIsNotOrgSlashPoolEvenWhenTheSubjectRepeatsIt(String key) {
            ObjectNode event = apply();
            event.put("subject", key);

            assertThat(rejection(key, bytes(event)).code()).isEqualTo(Code.INVALID_KEY);
        }

        @Test
        void shouldRejectAPoolNameThatIsNotThePoolOfTheKey() {
            ObjectNode event = apply();
            at(event, "/data/nodePool/metadata").put("name", "other-pool");

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(KEY_MISMATCH);
            assertThat(rejection.reason()).contains("other-pool", KEY);
        }

        @Test
        void shouldRejectADeleteOfAnotherPoolThanTheKeys() {
            ObjectNode event = event("DELETE", json("{\"metadata\": {\"name\": \"other-pool\"}}"));

            assertThat(rejection(event).code()).isEqualTo(KEY_MISMATCH);
        }
    }

    @Nested
    class Data {

        @ParameterizedTest(name = "data {0}")
        @ValueSource(strings = {"absent", "[]", "\"APPLY\""})
        void shouldRejectDataThatIsNotAnObject(String value) {
            ObjectNode event = apply();
            if (value.equals("absent")) {
                event.remove("data");
            } else {
                event.set("data", Fixtures.anyJson(value));
            }

            assertThat(rejection(event).code()).isEqualTo(INVALID_CLOUD_EVENT);
        }

        @ParameterizedTest(name = "operation {0}")
        @ValueSource(strings = {"absent", "PATCH", "apply", ""})
        void shouldRejectAMissingOrUnknownOperation(String operation) {
            ObjectNode event = apply();
            if (operation.equals("absent")) {
                at(event, "/data").remove("operation");
            } else {
                at(event, "/data").put("operation", operation);
            }

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(INVALID_CLOUD_EVENT);
            assertThat(rejection.reason()).contains("data.operation");
        }

        @ParameterizedTest(name = "nodePool {0}")
        @ValueSource(strings = {"absent", "null", "\"example-nodepool\""})
        void shouldRejectARequestWithoutANodePool(String value) {
            ObjectNode event = apply();
            if (value.equals("absent")) {
                at(event, "/data").remove("nodePool");
            } else {
                at(event, "/data").set("nodePool", Fixtures.anyJson(value));
            }

            Rejection rejection = rejection(event);

            assertThat(rejection.code()).isEqualTo(INVALID_CLOUD_EVENT);
            assertThat(rejection.reason()).contains("data.nodePool");
        }

        @Test
        void shouldRejectAStructurallyInvalidManifestNamingEveryBadField() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec").put("targetNodes", -1).put("colour", "blue");

            Rejection rejection = rejection(event("APPLY", manifest));

            assertThat(rejection.code()).isEqualTo(INVALID_SPEC);
            assertThat(rejection.reason())
                    .startsWith("data.nodePool is invalid: ")
                    .contains("spec.targetNodes: ", "spec.colour: unknown field \"colour\"");
        }

        @Test
        void shouldIgnoreTheStatusOfAnAppliedPoolAsTheApiServerDoes() {
            ObjectNode manifest = manifest();
            manifest.putObject("status").put("currentNodes", 5).put("whatever", true);

            PoolRequest request = read(event("APPLY", manifest));

            assertThat(request.manifest().status()).isNull();
            assertThat(request.manifest().spec().targetNodes())
                    .isEqualTo(at(manifest, "/spec").get("targetNodes").intValue());
        }

        @Test
        void shouldRejectADeleteThatDoesNotNameThePool() {
            assertThat(rejection(event("DELETE", json("{\"metadata\": {}}"))).code())
                    .isEqualTo(INVALID_CLOUD_EVENT);
            assertThat(rejection(event("DELETE", json("{}"))).code()).isEqualTo(INVALID_CLOUD_EVENT);
        }
    }
}
