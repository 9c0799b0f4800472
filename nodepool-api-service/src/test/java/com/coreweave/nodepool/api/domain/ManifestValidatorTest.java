package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.anyJson;
import static com.coreweave.nodepool.api.domain.Fixtures.at;
import static com.coreweave.nodepool.api.domain.Fixtures.json;
import static com.coreweave.nodepool.api.domain.Fixtures.manifest;
import static com.coreweave.nodepool.schema.resource.Statuses.FORBIDDEN;
import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.NOT_SUPPORTED;
import static com.coreweave.nodepool.schema.resource.Statuses.OMITTED;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_LONG;
import static com.coreweave.nodepool.schema.resource.Statuses.TOO_MANY;
import static com.coreweave.nodepool.schema.resource.Statuses.TYPE_INVALID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.util.List;
import org.assertj.core.api.ListAssert;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ManifestValidatorTest {

    /** Sets {@code field} of the object at {@code pointer} to the JSON {@code value}. */
    private static ObjectNode manifestWith(String pointer, String field, String value) {
        ObjectNode manifest = manifest();
        ensureObject(manifest, pointer).set(field, anyJson(value));
        return manifest;
    }

    private static ObjectNode ensureObject(ObjectNode root, String pointer) {
        ObjectNode node = root;
        for (String part : pointer.split("/")) {
            if (part.isEmpty()) {
                continue;
            }
            if (part.matches("\\d+")) {
                node = (ObjectNode) node.get(Integer.parseInt(part));
            } else {
                node = node.has(part) ? (ObjectNode) node.get(part) : node.putObject(part);
            }
        }
        return node;
    }

    private static ListAssert<Tuple> assertCauses(JsonNode manifest) {
        return assertThat(ManifestValidator.validate(manifest).stream()
                .map(c -> tuple(c.getReason(), c.getField()))
                .toList());
    }

    @Test
    void shouldAcceptTheSmallestManifest() {
        assertThat(ManifestValidator.validate(manifest())).isEmpty();
    }

    @Test
    void shouldAcceptAManifestUsingEveryFieldOfTheReference() {
        ObjectNode full = json("""
        {"apiVersion": "compute.coreweave.com/v1alpha1", "kind": "NodePool",
         "metadata": {"name": "example-nodepool", "namespace": "", "uid": "u-1", "resourceVersion": "7",
                      "labels": {"team": "ml", "example.com/owner": "", "app.kubernetes.io/name": "trainer"},
                      "annotations": {"note": "anything at all, even spaces: yes!"}},
         "spec": {"computeClass": "default", "instanceType": "gd-8xa100-i128", "region": "US-EAST-04A",
                  "targetNodes": 2, "minNodes": 0, "maxNodes": 4, "autoscaling": true,
                  "nodeLabels": {"coreweave.com/role": "train"},
                  "nodeAnnotations": {"example.com/why": "because"},
                  "nodeTaints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"},
                                 {"key": "example.com/dedicated", "effect": "NoExecute"}],
                  "image": {"kernel": "6.5", "releaseTrain": "latest"},
                  "gpu": {"version": "535"},
                  "lifecycle": {"scaleDownStrategy": "PreferIdle", "disableUnhealthyNodeEviction": true},
                  "nodeConfigurationUpdateStrategy": {"type": "Manual"}},
         "status": null}
        """);

        assertThat(ManifestValidator.validate(full)).isEmpty();
    }

    @Test
    void shouldReportEveryCauseAtOnce() {
        ObjectNode manifest = json("""
        {"apiVersion": "v1", "kind": "NodePool", "extra": 1,
         "metadata": {"name": "Bad_Name", "labels": {"team": "not ok"}},
         "spec": {"instanceType": "gd-8xa100-i128", "targetNodes": -1, "maxNodes": "4", "computeClass": "gpu",
                  "nodeTaints": [{"key": "gpu"}]},
         "status": {"currentNodes": 1}}
        """);

        assertCauses(manifest)
                .containsExactlyInAnyOrder(
                        tuple(INVALID, "extra"),
                        tuple(NOT_SUPPORTED, "apiVersion"),
                        tuple(INVALID, "metadata.name"),
                        tuple(INVALID, "metadata.labels[team]"),
                        tuple(INVALID, "spec.targetNodes"),
                        tuple(TYPE_INVALID, "spec.maxNodes"),
                        tuple(NOT_SUPPORTED, "spec.computeClass"),
                        tuple(REQUIRED, "spec.nodeTaints[0].effect"));
    }

    @Nested
    class TopLevel {

        @Test
        void shouldRejectAValueThatIsNotAnObject() {
            assertCauses(anyJson("[1, 2]")).containsExactly(tuple(TYPE_INVALID, ""));
            assertCauses(null).containsExactly(tuple(TYPE_INVALID, ""));
        }

        @Test
        void shouldRequireApiVersionKindMetadataAndSpec() {
            assertCauses(json("{}"))
                    .containsExactlyInAnyOrder(
                            tuple(REQUIRED, "apiVersion"),
                            tuple(REQUIRED, "kind"),
                            tuple(REQUIRED, "metadata"),
                            tuple(REQUIRED, "spec"));
        }

        @Test
        void shouldRejectAnotherApiVersionOrKindAsNotSupported() {
            ObjectNode manifest = manifest();
            manifest.put("apiVersion", "compute.coreweave.com/v1").put("kind", "NodePoolList");

            List<StatusCause> causes = ManifestValidator.validate(manifest);

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(NOT_SUPPORTED, "apiVersion"), tuple(NOT_SUPPORTED, "kind"));
            assertThat(causes.get(0).getMessage()).contains("\"compute.coreweave.com/v1alpha1\"");
            assertThat(causes.get(1).getMessage()).contains("\"NodePool\"");
        }

        @Test
        void shouldIgnoreStatusAsASubresourceTheClientCannotWrite() {
            ObjectNode manifest = manifestWith("", "status", "{\"currentNodes\": 3, \"anything\": [1]}");

            ManifestValidator.Checked checked =
                    ManifestValidator.check(manifest, ManifestValidator.FieldValidation.Strict);

            assertThat(checked.causes()).isEmpty();
            assertThat(checked.manifest().has("status")).isFalse();
            assertThat(checked.manifest().get("spec")).isEqualTo(manifest.get("spec"));
        }

        @ParameterizedTest(name = "{0} must be an object")
        @ValueSource(strings = {"metadata", "spec"})
        void shouldRejectMetadataOrSpecThatIsNotAnObject(String field) {
            assertCauses(manifestWith("", field, "[]")).containsExactly(tuple(TYPE_INVALID, field));
        }
    }

    @Nested
    class UnknownFields {

        @ParameterizedTest(name = "an unknown field in {0} is reported as {1}")
        @CsvSource({
            "'',                                       colour",
            "/metadata,                                metadata.colour",
            "/spec,                                    spec.colour",
            "/spec/image,                              spec.image.colour",
            "/spec/gpu,                                spec.gpu.colour",
            "/spec/lifecycle,                          spec.lifecycle.colour",
            "/spec/nodeConfigurationUpdateStrategy,    spec.nodeConfigurationUpdateStrategy.colour",
        })
        void shouldRejectAnUnknownFieldWithItsPath(String pointer, String path) {
            List<StatusCause> causes = ManifestValidator.validate(manifestWith(pointer, "colour", "\"blue\""));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, path));
            assertThat(causes.get(0).getMessage()).isEqualTo("unknown field \"colour\"");
        }

        @Test
        void shouldRejectAnUnknownFieldOfATaintWithItsIndex() {
            ObjectNode manifest = manifestWith(
                    "/spec",
                    "nodeTaints",
                    "[{\"key\": \"a\", \"effect\": \"NoSchedule\"}, {\"key\": \"b\", \"effect\": \"NoSchedule\", \"ttl\": 5}]");

            assertCauses(manifest).containsExactly(tuple(INVALID, "spec.nodeTaints[1].ttl"));
        }

        @Test
        void shouldNotAcceptMisspelledReferenceFields() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec").put("targetNode", 3).put("instancetype", "x");

            assertCauses(manifest)
                    .containsExactlyInAnyOrder(tuple(INVALID, "spec.targetNode"), tuple(INVALID, "spec.instancetype"));
        }
    }

    @Nested
    class Types {

        @ParameterizedTest(name = "{1} = {2} is the wrong type")
        @CsvSource(
                delimiter = '|',
                value = {
                    "''                                  | apiVersion                | 1",
                    "/metadata                           | name                      | 7",
                    "/metadata                           | uid                       | 42",
                    "/metadata                           | resourceVersion           | {}",
                    "/metadata                           | labels                    | \"team=ml\"",
                    "/metadata                           | annotations               | []",
                    "/spec                               | instanceType              | 5",
                    "/spec                               | computeClass              | true",
                    "/spec                               | region                    | 4",
                    "/spec                               | targetNodes               | \"3\"",
                    "/spec                               | targetNodes               | 1.5",
                    "/spec                               | targetNodes               | 1099511627776",
                    "/spec                               | minNodes                  | \"0\"",
                    "/spec                               | maxNodes                  | false",
                    "/spec                               | autoscaling               | \"true\"",
                    "/spec                               | nodeLabels                | [\"a\"]",
                    "/spec                               | nodeAnnotations           | \"a\"",
                    "/spec                               | nodeTaints                | {}",
                    "/spec                               | image                     | \"ncore\"",
                    "/spec                               | gpu                       | 535",
                    "/spec                               | lifecycle                 | \"IdleOnly\"",
                    "/spec                               | nodeConfigurationUpdateStrategy | \"Manual\"",
                    "/spec/image                         | name                      | 1",
                    "/spec/image                         | releaseTrain              | 2",
                    "/spec/gpu                           | version                   | 535",
                    "/spec/lifecycle                     | disableUnhealthyNodeEviction | \"yes\"",
                    "/spec/lifecycle                     | scaleDownStrategy         | 1",
                    "/spec/lifecycle                     | maxUnhealthy              | 3",
                    "/spec/nodeConfigurationUpdateStrategy | type                    | []",
                })
        void shouldRejectAValueOfTheWrongTypeWithTheFieldPath(String pointer, String field, String value) {
            String path = (pointer.isEmpty() ? "" : pointer.substring(1).replace('/', '.') + ".") + field;

            assertCauses(manifestWith(pointer, field, value)).containsExactly(tuple(TYPE_INVALID, path));
        }

        @ParameterizedTest(name = "metadata.{0} = {1}")
        @CsvSource(
                delimiter = '|',
                value = {
                    "generation        | \"one\"",
                    "creationTimestamp | \"yesterday\"",
                    "deletionTimestamp | true",
                })
        void shouldRejectAWrongTypedServerSetFieldWithItsPath(String field, String value) {
            assertCauses(manifestWith("/metadata", field, value))
                    .containsExactly(tuple(TYPE_INVALID, "metadata." + field));
        }

        @Test
        void shouldRejectANonStringLabelValueAtItsKey() {
            assertCauses(manifestWith("/spec", "nodeLabels", "{\"team\": 1, \"tier\": \"gpu\"}"))
                    .containsExactly(tuple(TYPE_INVALID, "spec.nodeLabels[team]"));
        }

        @Test
        void shouldRejectATaintThatIsNotAnObjectWithItsIndex() {
            assertCauses(manifestWith("/spec", "nodeTaints", "[\"gpu=true:NoSchedule\"]"))
                    .containsExactly(tuple(TYPE_INVALID, "spec.nodeTaints[0]"));
        }

        @Test
        void shouldTreatNullOptionalFieldsAsAbsent() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec")
                    .putNull("minNodes")
                    .putNull("nodeLabels")
                    .putNull("nodeTaints")
                    .putNull("image")
                    .putNull("lifecycle")
                    .putNull("autoscaling");

            assertThat(ManifestValidator.validate(manifest)).isEmpty();
        }
    }

    @Nested
    class Counts {

        @ParameterizedTest(name = "negative {0}")
        @ValueSource(strings = {"targetNodes", "minNodes", "maxNodes"})
        void shouldRejectANegativeCountWithTheFieldPath(String field) {
            List<StatusCause> causes = ManifestValidator.validate(manifestWith("/spec", field, "-1"));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, "spec." + field));
            assertThat(causes.get(0).getMessage()).isEqualTo("Invalid value: -1: must be greater than or equal to 0");
        }

        @Test
        void shouldAcceptZeroTargetNodes() {
            assertThat(ManifestValidator.validate(manifestWith("/spec", "targetNodes", "0")))
                    .isEmpty();
        }

        @ParameterizedTest(name = "targetNodes = {0}")
        @ValueSource(strings = {"null", "absent"})
        void shouldRequireTargetNodes(String value) {
            ObjectNode manifest = manifest();
            if (value.equals("absent")) {
                at(manifest, "/spec").remove("targetNodes");
            } else {
                at(manifest, "/spec").putNull("targetNodes");
            }

            assertCauses(manifest).containsExactly(tuple(REQUIRED, "spec.targetNodes"));
        }
    }

    @Nested
    class RequiredStrings {

        @ParameterizedTest(name = "instanceType = {0}")
        @ValueSource(strings = {"null", "\"\"", "\"   \""})
        void shouldRequireAnInstanceType(String value) {
            assertCauses(manifestWith("/spec", "instanceType", value))
                    .containsExactly(tuple(REQUIRED, "spec.instanceType"));
        }

        @Test
        void shouldRequireAName() {
            ObjectNode manifest = manifest();
            at(manifest, "/metadata").remove("name");

            assertCauses(manifest).containsExactly(tuple(REQUIRED, "metadata.name"));
        }
    }

    @Nested
    class Enums {

        @ParameterizedTest(name = "{1} = {2}")
        @CsvSource({
            "/spec,                                 computeClass,      reserved,  spec.computeClass",
            "/spec/image,                           releaseTrain,      beta,      spec.image.releaseTrain",
            "/spec/lifecycle,                       scaleDownStrategy, Random,    spec.lifecycle.scaleDownStrategy",
            "/spec/lifecycle,                       scaleDownStrategy, idleonly,  spec.lifecycle.scaleDownStrategy",
            "/spec/nodeConfigurationUpdateStrategy, type,              Sometimes, spec.nodeConfigurationUpdateStrategy.type",
        })
        void shouldRejectAValueOutsideTheEnumAsNotSupported(String pointer, String field, String value, String path) {
            List<StatusCause> causes = ManifestValidator.validate(manifestWith(pointer, field, "\"" + value + "\""));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(NOT_SUPPORTED, path));
            assertThat(causes.get(0).getMessage())
                    .startsWith("Unsupported value: \"" + value + "\": supported values: ");
        }

        @ParameterizedTest(name = "{1} = {2}")
        @CsvSource({
            "/spec,                                 computeClass,      default",
            "/spec,                                 computeClass,      spot",
            "/spec,                                 computeClass,      Spot",
            "/spec/image,                           releaseTrain,      stable",
            "/spec/image,                           releaseTrain,      latest",
            "/spec/lifecycle,                       scaleDownStrategy, IdleOnly",
            "/spec/lifecycle,                       scaleDownStrategy, PreferIdle",
            "/spec/nodeConfigurationUpdateStrategy, type,              Manual",
            "/spec/nodeConfigurationUpdateStrategy, type,              OnSpecUpdate",
            "/spec/nodeConfigurationUpdateStrategy, type,              Always",
        })
        void shouldAcceptEveryValueOfTheEnum(String pointer, String field, String value) {
            assertThat(ManifestValidator.validate(manifestWith(pointer, field, "\"" + value + "\"")))
                    .isEmpty();
        }

        @Test
        void shouldListTheSupportedScaleDownStrategies() {
            StatusCause cause = ManifestValidator.validate(
                            manifestWith("/spec/lifecycle", "scaleDownStrategy", "\"x\""))
                    .get(0);

            assertThat(cause.getMessage())
                    .isEqualTo("Unsupported value: \"x\": supported values: \"IdleOnly\", \"PreferIdle\"");
        }
    }

    @Nested
    class Metadata {

        @ParameterizedTest(name = "name \"{0}\"")
        @ValueSource(strings = {"", "Example", "example_pool", "-example", "example-", "exa mple", "example..pool"})
        void shouldRejectANameThatIsNotADnsSubdomain(String name) {
            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith("/metadata", "name", "\"" + name + "\""));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, "metadata.name"));
            assertThat(causes.get(0).getMessage()).startsWith("Invalid value: \"" + name + "\": ");
        }

        @Test
        void shouldRejectANameLongerThan253Characters() {
            String name = "a".repeat(254);

            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith("/metadata", "name", "\"" + name + "\""));

            assertThat(causes).extracting(StatusCause::getField).containsExactly("metadata.name");
            assertThat(causes.get(0).getMessage()).endsWith("must be no more than 253 characters");
        }

        @ParameterizedTest(name = "name \"{0}\"")
        @ValueSource(strings = {"a", "example-nodepool", "pool.example.com", "0-gpu-pool"})
        void shouldAcceptADnsSubdomainName(String name) {
            assertThat(ManifestValidator.validate(manifestWith("/metadata", "name", "\"" + name + "\"")))
                    .isEmpty();
        }

        @Test
        void shouldForbidANamespaceOnAClusterScopedResource() {
            assertCauses(manifestWith("/metadata", "namespace", "\"default\""))
                    .containsExactly(tuple(FORBIDDEN, "metadata.namespace"));
            assertThat(ManifestValidator.validate(manifestWith("/metadata", "namespace", "\"\"")))
                    .isEmpty();
        }
    }

    @Nested
    class LabelsAndAnnotations {

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"metadata.labels", "spec.nodeLabels"})
        void shouldRejectAnInvalidLabelKeyAtTheMapPath(String path) {
            String[] parts = path.split("\\.");
            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith("/" + parts[0], parts[1], "{\"-team\": \"ml\"}"));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, path));
            assertThat(causes.get(0).getMessage()).startsWith("Invalid value: \"-team\": ");
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"metadata.labels", "spec.nodeLabels"})
        void shouldRejectAnInvalidLabelValueAtItsKey(String path) {
            String[] parts = path.split("\\.");

            assertCauses(manifestWith("/" + parts[0], parts[1], "{\"team\": \"machine learning\"}"))
                    .containsExactly(tuple(INVALID, path + "[team]"));
        }

        @ParameterizedTest(name = "label key \"{0}\"")
        @ValueSource(
                strings = {
                    "/team",
                    "Example.com/team",
                    "example.com/",
                    "example.com/a/b",
                    "team!",
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                })
        void shouldRejectALabelKeyThatIsNotAQualifiedName(String key) {
            assertCauses(manifestWith("/spec", "nodeLabels", "{\"" + key + "\": \"x\"}"))
                    .containsExactly(tuple(INVALID, "spec.nodeLabels"));
        }

        @Test
        void shouldRejectALabelValueLongerThan63Characters() {
            assertCauses(manifestWith("/spec", "nodeLabels", "{\"team\": \"" + "a".repeat(64) + "\"}"))
                    .containsExactly(tuple(INVALID, "spec.nodeLabels[team]"));
            assertThat(ManifestValidator.validate(
                            manifestWith("/spec", "nodeLabels", "{\"team\": \"" + "a".repeat(63) + "\"}")))
                    .isEmpty();
        }

        @Test
        void shouldAcceptPrefixedKeysAndEmptyLabelValues() {
            assertThat(ManifestValidator.validate(manifestWith(
                            "/metadata",
                            "labels",
                            "{\"example.com/team\": \"\", \"app.kubernetes.io/part-of\": \"ml_v1.2\"}")))
                    .isEmpty();
        }

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"metadata.annotations", "spec.nodeAnnotations"})
        void shouldAcceptAnyAnnotationValueButCheckItsKey(String path) {
            String[] parts = path.split("\\.");

            assertThat(ManifestValidator.validate(manifestWith(
                            "/" + parts[0],
                            parts[1],
                            "{\"example.com/note\": \"free text: with spaces, {json} & more\"}")))
                    .isEmpty();
            assertCauses(manifestWith("/" + parts[0], parts[1], "{\"bad key\": \"x\"}"))
                    .containsExactly(tuple(INVALID, path));
        }

        @Test
        void shouldRejectAnnotationsLargerThan256KiBInTotal() {
            ObjectNode manifest = manifest();
            ObjectNode annotations = at(manifest, "/metadata").putObject("annotations");
            annotations.put("a", "x".repeat(200 * 1024)).put("b", "x".repeat(60 * 1024));

            List<StatusCause> causes = ManifestValidator.validate(manifest);

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(TOO_LONG, "metadata.annotations"));
            assertThat(causes.get(0).getMessage()).contains("at most 262144 bytes together");
        }

        @Test
        void shouldCountLabelsAndAnnotationsInUtf8Bytes() {
            ObjectNode manifest = manifest();
            at(manifest, "/metadata").putObject("annotations").put("note", "é".repeat(130 * 1024));

            List<StatusCause> causes = ManifestValidator.validate(manifest);

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(TOO_LONG, "metadata.annotations"));
            assertThat(causes.get(0).getMessage()).endsWith("these have " + (4 + 260 * 1024));
        }

        @Test
        void shouldAddUpThePoolsAndTheNodesLabelsAndAnnotations() {
            ObjectNode manifest = manifest();
            at(manifest, "/metadata").putObject("annotations").put("a", "x".repeat(250 * 1024));
            at(manifest, "/spec").putObject("nodeAnnotations").put("b", "x".repeat(8 * 1024));

            assertCauses(manifest).containsExactly(tuple(TOO_LONG, "spec.nodeAnnotations"));
        }

        @Test
        void shouldAcceptAnnotationsOfExactly256KiB() {
            ObjectNode manifest = manifest();
            at(manifest, "/metadata").putObject("annotations").put("a", "x".repeat(256 * 1024 - 1));

            assertThat(ManifestValidator.validate(manifest)).isEmpty();
        }

        /** Issue 25: an 8-node pool carried 240 KB of nodeAnnotations on every node. */
        @Test
        void shouldRejectNodeLabelsAndAnnotationsOver16KiBSinceEveryNodeCarriesThem() {
            ObjectNode manifest = manifest();
            ObjectNode annotations = at(manifest, "/spec").putObject("nodeAnnotations");
            for (int i = 0; i < 30; i++) {
                annotations.put("example.com/note-" + i, "x".repeat(8 * 1024));
            }

            List<StatusCause> causes = ManifestValidator.validate(manifest);

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(TOO_LONG, "spec.nodeAnnotations"));
            assertThat(causes.get(0).getMessage()).contains("at most 16384 bytes together as JSON");
        }

        @Test
        void shouldMeasureTheNodesLabelsAndAnnotationsAsJsonWithItsEscapes() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec").putObject("nodeLabels").put("team", "ml");
            // 3,000 characters, 3,000 bytes of UTF-8, 18,000 bytes of JSON (\u0001 each).
            at(manifest, "/spec").putObject("nodeAnnotations").put("raw", "\u0001".repeat(3000));

            assertCauses(manifest).containsExactly(tuple(TOO_LONG, "spec.nodeAnnotations"));
        }

        @Test
        void shouldAcceptNodeLabelsAndAnnotationsWithinTheirBound() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec").putObject("nodeAnnotations").put("a", "x".repeat(16 * 1024 - 16));

            assertThat(ManifestValidator.validate(manifest)).isEmpty();
        }
    }

    @Nested
    class Taints {

        private ObjectNode withTaints(String taints) {
            return manifestWith("/spec", "nodeTaints", taints);
        }

        @Test
        void shouldAcceptTaintsOfEveryEffectWithOrWithoutValue() {
            assertThat(ManifestValidator.validate(withTaints("""
          [{"key": "gpu", "value": "true", "effect": "NoSchedule"},
           {"key": "example.com/dedicated", "effect": "PreferNoSchedule"},
           {"key": "spot", "value": "", "effect": "NoExecute"}]
          """))).isEmpty();
        }

        @Test
        void shouldRequireTheKeyAndEffectOfEachTaint() {
            assertCauses(withTaints("[{\"key\": \"gpu\", \"effect\": \"NoSchedule\"}, {\"value\": \"x\"}]"))
                    .containsExactly(
                            tuple(REQUIRED, "spec.nodeTaints[1].key"), tuple(REQUIRED, "spec.nodeTaints[1].effect"));
        }

        @Test
        void shouldRejectAnUnknownEffect() {
            List<StatusCause> causes =
                    ManifestValidator.validate(withTaints("[{\"key\": \"gpu\", \"effect\": \"NoRun\"}]"));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(NOT_SUPPORTED, "spec.nodeTaints[0].effect"));
            assertThat(causes.get(0).getMessage()).contains("\"NoExecute\"", "\"NoSchedule\"", "\"PreferNoSchedule\"");
        }

        @Test
        void shouldRejectAnInvalidTaintKeyOrValueWithItsPath() {
            assertCauses(withTaints("[{\"key\": \"gpu type\", \"value\": \"a:b\", \"effect\": \"NoSchedule\"}]"))
                    .containsExactly(
                            tuple(INVALID, "spec.nodeTaints[0].key"), tuple(INVALID, "spec.nodeTaints[0].value"));
        }

        @Test
        void shouldRejectAWrongTypedTaintField() {
            assertCauses(withTaints("[{\"key\": \"gpu\", \"value\": true, \"effect\": \"NoSchedule\"}]"))
                    .containsExactly(tuple(TYPE_INVALID, "spec.nodeTaints[0].value"));
        }
    }

    @Nested
    class GpuVersion {

        @ParameterizedTest(name = "gpu.version \"{0}\"")
        @ValueSource(strings = {"535.104.05", "535.104", "v535", "latest", ""})
        void shouldRejectAnythingButAMajorVersionWithTheFieldPath(String version) {
            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith("/spec/gpu", "version", "\"" + version + "\""));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, "spec.gpu.version"));
            assertThat(causes.get(0).getMessage()).contains("^[0-9]{1,4}$");
        }

        @ParameterizedTest(name = "gpu.version \"{0}\"")
        @ValueSource(strings = {"535", "570", "12"})
        void shouldAcceptAMajorVersion(String version) {
            assertThat(ManifestValidator.validate(manifestWith("/spec/gpu", "version", "\"" + version + "\"")))
                    .isEmpty();
        }
    }

    @Nested
    class Region {

        @ParameterizedTest(name = "region \"{0}\"")
        @ValueSource(strings = {"us-east-04a", "US-EAST-4A", "USEAST04A", "US-EAST-04", ""})
        void shouldRejectARegionThatIsNotAZoneId(String region) {
            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith("/spec", "region", "\"" + region + "\""));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, "spec.region"));
            assertThat(causes.get(0).getMessage()).contains("^[A-Z]{2}-[A-Z]+-[0-9]{2}[A-Z]$");
        }

        @ParameterizedTest(name = "region \"{0}\"")
        @ValueSource(strings = {"US-EAST-04A", "US-CENTRAL-02A", "EU-SOUTH-03B"})
        void shouldAcceptAZoneId(String region) {
            assertThat(ManifestValidator.validate(manifestWith("/spec", "region", "\"" + region + "\"")))
                    .isEmpty();
        }
    }

    @Nested
    class Bounds {

        @ParameterizedTest(name = "{0}")
        @ValueSource(strings = {"targetNodes", "minNodes", "maxNodes"})
        void shouldRejectMoreNodesThanAPoolMayHaveAtTheField(String field) {
            List<StatusCause> causes = ManifestValidator.validate(
                    manifestWith("/spec", field, String.valueOf(Limits.MAX_TARGET_NODES + 1)));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(INVALID, "spec." + field));
            assertThat(causes.get(0).getMessage()).isEqualTo("Invalid value: 5001: must be less than or equal to 5000");
            assertThat(ManifestValidator.validate(
                            manifestWith("/spec", field, String.valueOf(Limits.MAX_TARGET_NODES))))
                    .isEmpty();
        }

        @Test
        void shouldRejectMoreTaintsThanTheSchemaAllows() {
            ArrayNode taints = at(manifest(), "/spec").arrayNode();
            for (int i = 0; i < 33; i++) {
                taints.addObject().put("key", "example.com/t" + i).put("effect", "NoSchedule");
            }

            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith("/spec", "nodeTaints", taints.toString()));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(tuple(TOO_MANY, "spec.nodeTaints"));
            assertThat(causes.get(0).getMessage()).isEqualTo("Too many: 33: must have at most 32 items");
        }

        @ParameterizedTest(name = "{1} longer than {2}")
        @CsvSource({
            "/spec,                   instanceType, 63,    spec.instanceType",
            "/spec,                   region,       63,    spec.region",
            "/spec/image,             name,         253,   spec.image.name",
            "/spec/image,             kernel,       63,    spec.image.kernel",
            "/spec/gpu,               version,      63,    spec.gpu.version",
            "/spec/nodeAnnotations,   a,            16384, spec.nodeAnnotations[a]",
        })
        void shouldRejectAStringLongerThanTheSchemaAllows(String pointer, String field, int max, String path) {
            List<StatusCause> causes =
                    ManifestValidator.validate(manifestWith(pointer, field, "\"" + "a".repeat(max + 1) + "\""));

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .contains(tuple(TOO_LONG, path));
            assertThat(causes.get(0).getMessage()).isEqualTo("Too long: must have at most " + max + " characters");
        }

        @Test
        void shouldRejectATaintKeyLongerThanAQualifiedNameAsTooLong() {
            String key = "a".repeat(253) + "/" + "b".repeat(63);
            assertThat(ManifestValidator.validate(manifestWith(
                            "/spec", "nodeTaints", "[{\"key\": \"" + key + "\", \"effect\": \"NoSchedule\"}]")))
                    .isEmpty();

            assertCauses(manifestWith(
                            "/spec", "nodeTaints", "[{\"key\": \"" + key + "b\", \"effect\": \"NoSchedule\"}]"))
                    .containsExactly(tuple(TOO_LONG, "spec.nodeTaints[0].key"));
        }

        @Test
        void shouldNotEchoAHugeValueBack() {
            ObjectNode manifest = manifest();
            at(manifest, "/spec").put("computeClass", "spot".repeat(250_000));
            at(manifest, "/spec").putObject("gpu").putArray("version").add("x".repeat(1_000_000));

            List<StatusCause> causes = ManifestValidator.validate(manifest);

            assertThat(causes)
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactlyInAnyOrder(
                            tuple(TOO_LONG, "spec.computeClass"), tuple(TYPE_INVALID, "spec.gpu.version"));
            assertThat(causes).allSatisfy(c -> assertThat(c.getMessage()).hasSizeLessThan(300));
        }

        /**
         * Issue 25: validation was quadratic in the bad items and listed every cause. 10,000 bad taints (two causes
         * each, and one for the list) are answered with the first 100 causes and a count of the rest.
         */
        @Test
        void shouldAnswerTenThousandInvalidTaintsWithAHundredCausesAndACount() {
            ArrayNode taints = at(manifest(), "/spec").arrayNode();
            for (int i = 0; i < 10_000; i++) {
                taints.addObject().put("key", "-bad-" + i).put("effect", "Sometimes");
            }
            ObjectNode manifest = manifest();
            at(manifest, "/spec").set("nodeTaints", taints);

            ManifestValidator.validate(manifest());
            long started = System.nanoTime();
            Status answer = Statuses.invalid("NodePool", "example-nodepool", ManifestValidator.validate(manifest));
            long millis = (System.nanoTime() - started) / 1_000_000;
            System.out.println("10,000 invalid taints validated in " + millis + " ms");

            List<StatusCause> causes = answer.getDetails().getCauses();
            assertThat(answer.getCode()).isEqualTo(422);
            assertThat(causes).hasSize(Limits.MAX_CAUSES + 1);
            assertThat(causes.get(0))
                    .extracting(StatusCause::getReason, StatusCause::getField)
                    .containsExactly(TOO_MANY, "spec.nodeTaints");
            assertThat(causes.get(1).getField()).isEqualTo("spec.nodeTaints[0].key");
            assertThat(causes.get(Limits.MAX_CAUSES))
                    .extracting(StatusCause::getReason, StatusCause::getMessage)
                    .containsExactly(OMITTED, "and 19901 more");
            assertThat(answer.getMessage())
                    .startsWith("NodePool.compute.coreweave.com \"example-nodepool\" is invalid: "
                            + "spec.nodeTaints: Too many: 10000: must have at most 32 items, spec.nodeTaints[0].key: Invalid value: "
                            + "\"-bad-0\"")
                    .endsWith(", and 19901 more");
        }
    }

    @Nested
    class DisruptionBudgets {

        private ObjectNode withBudgets(String budgets) {
            ObjectNode manifest = manifest();
            ((ObjectNode) manifest.get("spec")).set("disruption", json("{\"budgets\": " + budgets + "}"));
            return manifest;
        }

        @Test
        void shouldAcceptBudgetsInKarpentersShape() {
            assertThat(ManifestValidator.validate(withBudgets("""
                            [{"nodes": "20%"},
                             {"nodes": "0", "schedule": "0 9 * * 1-5", "duration": "8h",
                              "reasons": ["ScaleDown", "Reconfigure"]},
                             {"nodes": "2", "reasons": ["Unhealthy"], "maxPerWindow": 3, "window": "10m"},
                             {"nodes": "1", "schedule": "@daily", "duration": "1h30m"}]
                            """))).isEmpty();
        }

        @Test
        void shouldRejectEveryBadFieldOfABudgetWithItsPath() {
            assertCauses(withBudgets("""
                            [{"nodes": "120%", "reasons": ["Drifted"], "maxPerWindow": 101, "window": "10m"},
                             {"schedule": "0 9 * *", "duration": "8h"},
                             {"nodes": "1", "schedule": "0 25 * * *", "duration": "745h"},
                             {"nodes": "1", "duration": "8h", "window": "0s"}]
                            """))
                    .containsExactlyInAnyOrder(
                            tuple(INVALID, "spec.disruption.budgets[0].nodes"),
                            tuple(NOT_SUPPORTED, "spec.disruption.budgets[0].reasons[0]"),
                            tuple(INVALID, "spec.disruption.budgets[0].maxPerWindow"),
                            tuple(REQUIRED, "spec.disruption.budgets[1].nodes"),
                            tuple(INVALID, "spec.disruption.budgets[1].schedule"),
                            tuple(INVALID, "spec.disruption.budgets[2].schedule"),
                            tuple(INVALID, "spec.disruption.budgets[2].duration"),
                            tuple(REQUIRED, "spec.disruption.budgets[3].schedule"),
                            tuple(INVALID, "spec.disruption.budgets[3].window"),
                            tuple(REQUIRED, "spec.disruption.budgets[3].maxPerWindow"));
        }

        @Test
        void shouldAcceptAMaxUnhealthyCountOrPercentageAndRejectAnythingElseWithItsPath() {
            for (String good : List.of("3", "0", "40%", "100%")) {
                ObjectNode manifest = manifest();
                ((ObjectNode) manifest.get("spec")).set("lifecycle", json("{\"maxUnhealthy\": \"" + good + "\"}"));
                assertThat(ManifestValidator.validate(manifest)).as(good).isEmpty();
            }
            for (String bad : List.of("\"120%\"", "\"-1\"", "\"half\"", "\"\"")) {
                ObjectNode manifest = manifest();
                ((ObjectNode) manifest.get("spec")).set("lifecycle", json("{\"maxUnhealthy\": " + bad + "}"));
                assertCauses(manifest).as(bad).containsExactly(tuple(INVALID, "spec.lifecycle.maxUnhealthy"));
            }
        }

        @Test
        void shouldSayWhatIsWrongWithASchedule() {
            assertThat(ManifestValidator.validate(
                            withBudgets("[{\"nodes\": \"0\", \"schedule\": \"0 9 * * MON\", \"duration\": \"8h\"}]")))
                    .singleElement()
                    .satisfies(c -> assertThat(c.getMessage())
                            .isEqualTo("Invalid value: \"0 9 * * MON\": day of week must be a number within 0 and 7,"
                                    + " was \"MON\""));
        }

        @Test
        void shouldAcceptAWeightAndAConsolidateAfterAndRejectThemOutOfBounds() {
            ObjectNode good = manifest();
            ((ObjectNode) good.get("spec")).put("weight", 100);
            ((ObjectNode) good.get("spec")).set("disruption", json("{\"consolidateAfter\": \"1m30s\"}"));
            assertThat(ManifestValidator.validate(good)).isEmpty();

            ObjectNode bad = manifest();
            ((ObjectNode) bad.get("spec")).put("weight", 101);
            ((ObjectNode) bad.get("spec")).set("disruption", json("{\"consolidateAfter\": \"soon\"}"));
            assertCauses(bad)
                    .contains(tuple(INVALID, "spec.weight"), tuple(INVALID, "spec.disruption.consolidateAfter"));
        }

        @Test
        void shouldAcceptAnExpiryOrNeverAndAnExpiredBudgetAndRejectAnythingElse() {
            for (String expiry : List.of("720h", "Never", "90s", "8760h")) {
                ObjectNode good = manifest();
                ((ObjectNode) good.get("spec"))
                        .set(
                                "disruption",
                                json("{\"expireAfter\": \"" + expiry
                                        + "\", \"budgets\": [{\"nodes\": \"1\", \"reasons\": [\"Expired\"]}]}"));
                assertThat(ManifestValidator.validate(good)).as(expiry).isEmpty();
            }
            for (String expiry : List.of("soon", "0s", "8761h", "never", "30d")) {
                ObjectNode bad = manifest();
                ((ObjectNode) bad.get("spec")).set("disruption", json("{\"expireAfter\": \"" + expiry + "\"}"));
                assertCauses(bad).as(expiry).containsExactly(tuple(INVALID, "spec.disruption.expireAfter"));
            }
        }

        @Test
        void shouldRejectMoreThanFiftyBudgets() {
            assertCauses(withBudgets("[" + "{\"nodes\": \"1\"},".repeat(50) + "{\"nodes\": \"1\"}]"))
                    .containsExactly(tuple(TOO_MANY, "spec.disruption.budgets"));
        }
    }
}
