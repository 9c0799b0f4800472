package com.coreweave.nodepool.api.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.coreweave.nodepool.kit.rest.ApiException;
import io.fabric8.kubernetes.api.model.Status;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The query of a Kubernetes read as a client sends it: what it selects and asks for, and the 400s it earns. */
class ListOptionsTest {

    private static final String TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;"
            + "v=v1beta1;g=meta.k8s.io,application/json";

    private final ListOptions options = new ListOptions();

    @Test
    void shouldSelectByTheLabelSelectorItWasGiven() {
        options.labelSelector = "tier=gpu,env!=dev";

        assertThat(options.labels().test(Map.of("tier", "gpu", "env", "prod"))).isTrue();
        assertThat(options.labels().test(Map.of("tier", "gpu", "env", "dev"))).isFalse();
    }

    @Test
    void shouldSelectEverythingWithoutSelectors() {
        assertThat(options.labels().test(Map.of())).isTrue();
        assertThat(options.fields(Set.of("metadata.name")).test(Map.of("metadata.name", "a")))
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"tier in (gpu", "tier gpu", "=gpu"})
    void shouldAnswerBadRequestForALabelSelectorItCannotParse(String selector) {
        // given
        options.labelSelector = selector;
        // when
        ApiException refused = catchThrowableOfType(ApiException.class, options::labels);
        // then
        assertThat(refused.status().getCode()).isEqualTo(400);
        assertThat(refused.status().getReason()).isEqualTo("BadRequest");
        assertThat(refused.status().getMessage()).startsWith("invalid labelSelector: ");
    }

    @Test
    void shouldSelectByTheFieldsTheResourceSupports() {
        options.fieldSelector = "metadata.name=a";

        assertThat(options.fields(Set.of("metadata.name")).test(Map.of("metadata.name", "a")))
                .isTrue();
        assertThat(options.fields(Set.of("metadata.name")).test(Map.of("metadata.name", "b")))
                .isFalse();
    }

    @Test
    void shouldAnswerBadRequestForAFieldTheResourceDoesNotSupport() {
        // given
        options.fieldSelector = "spec.instanceType=gd-8xa100-i128";
        // when
        ApiException refused = catchThrowableOfType(ApiException.class, () -> options.fields(Set.of("metadata.name")));
        // then
        Status status = refused.status();
        assertThat(status.getCode()).isEqualTo(400);
        assertThat(status.getMessage())
                .isEqualTo("invalid fieldSelector: field label not supported: spec.instanceType");
    }

    @Test
    void shouldAnswerBadRequestForAFieldSelectorTermWithoutValue() {
        options.fieldSelector = "metadata.name";

        ApiException refused = catchThrowableOfType(ApiException.class, () -> options.fields(Set.of("metadata.name")));

        assertThat(refused.status().getCode()).isEqualTo(400);
        assertThat(refused.status().getMessage()).startsWith("invalid fieldSelector: ");
    }

    @Test
    void shouldServeATableWhenKubectlAsksForOne() {
        options.accept = TABLE;

        assertThat(options.table()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "application/json;as=Table;v=v1;g=example.com", "*/*"})
    void shouldServeTheObjectWhenNoMetaTableIsAskedFor(String accept) {
        options.accept = accept;

        assertThat(options.table()).isFalse();
    }

    @Test
    void shouldServeTheObjectWithoutAnAcceptHeader() {
        assertThat(options.table()).isFalse();
    }

    @Test
    void shouldAskForTheObjectItselfOnceMadePlain() {
        // given a Table read of one namespace with a selector
        options.accept = TABLE;
        options.labelSelector = "tier=gpu";
        options.inNamespace("default");
        // when
        ListOptions plain = options.plain();
        // then
        assertThat(plain.table()).isFalse();
        assertThat(plain.labels().test(Map.of())).isTrue();
        assertThat(options.table()).isTrue();
        assertThat(options.namespace).isEqualTo("default");
    }

    @Test
    void shouldIncludeMetadataInTableRowsByDefault() {
        assertThat(options.includeObject()).isEqualTo("Metadata");
        options.includeObject = "";
        assertThat(options.includeObject()).isEqualTo("Metadata");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Metadata", "Object", "None"})
    void shouldIncludeInTableRowsWhatTheClientAsksFor(String include) {
        options.includeObject = include;

        assertThat(options.includeObject()).isEqualTo(include);
    }

    @ParameterizedTest
    @ValueSource(strings = {"object", "All", "metadata "})
    void shouldAnswerBadRequestForAnIncludeObjectKubernetesDoesNotKnow(String include) {
        options.includeObject = include;

        ApiException refused = catchThrowableOfType(ApiException.class, options::includeObject);

        assertThat(refused.status().getCode()).isEqualTo(400);
        assertThat(refused.status().getMessage())
                .isEqualTo("includeObject must be Metadata, Object or None, not \"" + include + "\"");
    }
}
