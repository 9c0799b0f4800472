package com.coreweave.nodepool.api.kube;

import static com.coreweave.nodepool.api.domain.Fixtures.anyJson;
import static com.coreweave.nodepool.api.domain.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldOwnershipTest {

    static final Instant T1 = Instant.parse("2025-06-09T14:00:00Z");
    static final Instant T2 = Instant.parse("2025-06-09T15:00:00Z");

    static JsonNode pool(String spec, String labels) {
        return json("""
        {"apiVersion": "compute.coreweave.com/v1alpha1", "kind": "NodePool",
         "metadata": {"name": "p", "labels": %s}, "spec": %s}""".formatted(labels, spec));
    }

    static List<String> managers(List<ManagedFieldsEntry> entries) {
        return entries.stream()
                .map(e -> e.manager() + "/" + e.operation() + " " + e.fieldsV1())
                .toList();
    }

    @Test
    void shouldOwnEveryFieldOfACreatingApplyAsKubernetesFieldsV1() {
        var applied = FieldOwnership.apply(
                null,
                null,
                pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{\"team\": \"ml\"}"),
                "kubectl",
                false,
                T1);

        assertThat(managers(applied.managedFields()))
                .containsExactly(
                        "kubectl/Apply {\"f:spec\":{\"f:instanceType\":{},\"f:targetNodes\":{}},\"f:metadata\":{\"f:labels\":"
                                + "{\"f:team\":{}}}}");
        assertThat(applied.managedFields().get(0).time()).isEqualTo(T1);
    }

    @Test
    void shouldConflictWhenAnApplyWouldChangeAFieldAnotherManagerSetAndTakeItWhenForced() {
        JsonNode created = pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{}");
        var first = FieldOwnership.apply(null, null, created, "kubectl", false, T1);
        JsonNode scaled = pool("{\"instanceType\": \"a\", \"targetNodes\": 3}", "{}");
        var afterScale = FieldOwnership.update(first.object(), first.managedFields(), scaled, "kubectl-scale", T2);

        assertThatThrownBy(() -> FieldOwnership.apply(scaled, afterScale, created, "kubectl", false, T2))
                .isInstanceOfSatisfying(FieldOwnership.Conflicts.class, e -> {
                    assertThat(e.conflicts())
                            .containsExactly(new FieldOwnership.Conflict("kubectl-scale", ".spec.targetNodes"));
                    assertThat(e.getMessage())
                            .isEqualTo("Apply failed with 1 conflict: conflict with \"kubectl-scale\" using "
                                    + "compute.coreweave.com/v1alpha1: .spec.targetNodes");
                });
        var forced = FieldOwnership.apply(scaled, afterScale, created, "kubectl", true, T2);
        assertThat(forced.object().at("/spec/targetNodes").intValue()).isEqualTo(1);
        assertThat(managers(forced.managedFields()))
                .containsExactly("kubectl/Apply {\"f:spec\":{\"f:instanceType\":{},\"f:targetNodes\":{}}}");
    }

    @Test
    void shouldShareAFieldWhenTheApplySetsTheSameValue() {
        var first = FieldOwnership.apply(
                null, null, pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{}"), "team-a", false, T1);
        var second = FieldOwnership.apply(
                first.object(),
                first.managedFields(),
                pool("{\"targetNodes\": 1}", "{\"owner\": \"b\"}"),
                "team-b",
                false,
                T2);

        assertThat(managers(second.managedFields()))
                .containsExactly(
                        "team-a/Apply {\"f:spec\":{\"f:instanceType\":{},\"f:targetNodes\":{}}}",
                        "team-b/Apply {\"f:spec\":{\"f:targetNodes\":{}},\"f:metadata\":{\"f:labels\":{\"f:owner\":{}}}}");
        assertThat(second.object().at("/metadata/labels/owner").asText()).isEqualTo("b");
    }

    @Test
    void shouldRemoveAFieldItsApplierNoLongerNamesUnlessAnotherManagerOwnsIt() {
        var first = FieldOwnership.apply(
                null,
                null,
                pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{\"team\": \"ml\", \"tier\": \"gold\"}"),
                "kubectl",
                false,
                T1);
        var shared = FieldOwnership.apply(
                first.object(), first.managedFields(), pool("{}", "{\"tier\": \"gold\"}"), "other", false, T1);

        var again = FieldOwnership.apply(
                shared.object(),
                shared.managedFields(),
                pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{}"),
                "kubectl",
                false,
                T2);

        assertThat(again.object().at("/metadata/labels").has("team")).isFalse();
        assertThat(again.object().at("/metadata/labels/tier").asText()).isEqualTo("gold");
    }

    @Test
    void shouldKeepTheTimeOfAnApplyThatChangesNothing() {
        JsonNode config = pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{}");
        var first = FieldOwnership.apply(null, null, config, "kubectl", false, T1);

        var repeated = FieldOwnership.apply(first.object(), first.managedFields(), config, "kubectl", false, T2);

        assertThat(repeated.managedFields()).isEqualTo(first.managedFields());
    }

    @Test
    void shouldGiveAnUpdateTheFieldsItChangedAndDropFieldsItRemoved() {
        var created = FieldOwnership.update(
                null,
                null,
                pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{\"team\": \"ml\"}"),
                "kubectl-create",
                T1);
        var edited = FieldOwnership.update(
                pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{\"team\": \"ml\"}"),
                created,
                pool("{\"instanceType\": \"a\", \"targetNodes\": 2}", "{}"),
                "kubectl-edit",
                T2);

        assertThat(managers(edited))
                .containsExactly(
                        "kubectl-create/Update {\"f:spec\":{\"f:instanceType\":{}}}",
                        "kubectl-edit/Update {\"f:spec\":{\"f:targetNodes\":{}}}");
    }

    @Test
    void shouldTakeTheManagedFieldsAWriteGivesAsKubectlsMigrationToServerSideApplyDoes() {
        var clientSide = FieldOwnership.update(
                null,
                null,
                pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{}"),
                "kubectl-client-side-apply",
                T1);
        JsonNode migrated = anyJson("""
        [{"manager": "kubectl", "operation": "Apply", "apiVersion": "compute.coreweave.com/v1alpha1",
          "time": "2025-06-09T14:00:00Z", "fieldsType": "FieldsV1",
          "fieldsV1": {"f:spec": {"f:instanceType": {}, "f:targetNodes": {}}}}]""");

        assertThat(managers(FieldOwnership.given(migrated, clientSide)))
                .containsExactly("kubectl/Apply {\"f:spec\":{\"f:instanceType\":{},\"f:targetNodes\":{}}}");
    }

    @Test
    void shouldKeepTheStoredManagedFieldsUnlessAWriteGivesReadableOnesAndStripThemForOneEmptyEntry() {
        var stored = FieldOwnership.update(
                null, null, pool("{\"instanceType\": \"a\", \"targetNodes\": 1}", "{}"), "kubectl-create", T1);

        assertThat(FieldOwnership.given(null, stored)).isSameAs(stored);
        assertThat(FieldOwnership.given(anyJson("[]"), stored))
                .as("an empty list")
                .isSameAs(stored);
        assertThat(FieldOwnership.given(
                        anyJson("[{\"manager\": \"x\", \"operation\": \"Delete\", \"fieldsV1\": {}}]"), stored))
                .as("not an operation")
                .isSameAs(stored);
        assertThat(FieldOwnership.given(
                        anyJson("[{\"manager\": \"x\", \"operation\": \"Apply\", \"time\": \"noon\", "
                                + "\"fieldsV1\": {}}]"),
                        stored))
                .as("not a time")
                .isSameAs(stored);
        assertThat(FieldOwnership.given(anyJson("[{}]"), stored)).as("stripped").isEmpty();
    }
}
