package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class LabelSelectorTest {

    private static final Map<String, String> GPU_POOL = Map.of("tier", "gpu", "env", "prod", "example.com/team", "ml");
    private static final Map<String, String> CPU_POOL = Map.of("tier", "cpu", "env", "dev");
    private static final Map<String, String> UNLABELLED = Map.of();

    private static boolean matches(String selector, Map<String, String> labels) {
        return LabelSelector.parse(selector).test(labels);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @NullAndEmptySource
    @ValueSource(strings = {"  "})
    void anEmptySelectorMatchesEveryPool(String selector) {
        assertThat(matches(selector, GPU_POOL)).isTrue();
        assertThat(matches(selector, UNLABELLED)).isTrue();
        assertThat(LabelSelector.parse(selector).test(null)).isTrue();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"tier=gpu", "tier==gpu", "tier = gpu"})
    void equalityMatchesPoolsWithThatValue(String selector) {
        assertThat(matches(selector, GPU_POOL)).isTrue();
        assertThat(matches(selector, CPU_POOL)).isFalse();
        assertThat(matches(selector, UNLABELLED)).isFalse();
    }

    @Test
    void inequalityMatchesOtherValuesAndPoolsWithoutTheLabel() {
        assertThat(matches("tier!=gpu", GPU_POOL)).isFalse();
        assertThat(matches("tier!=gpu", CPU_POOL)).isTrue();
        assertThat(matches("tier!=gpu", UNLABELLED)).isTrue();
    }

    @Test
    void existenceMatchesPoolsWithTheLabelWhateverItsValue() {
        assertThat(matches("tier", GPU_POOL)).isTrue();
        assertThat(matches("tier", CPU_POOL)).isTrue();
        assertThat(matches("tier", UNLABELLED)).isFalse();
        assertThat(matches("tier", Map.of("tier", ""))).isTrue();
    }

    @Test
    void nonExistenceMatchesPoolsWithoutTheLabel() {
        assertThat(matches("!tier", GPU_POOL)).isFalse();
        assertThat(matches("!tier", UNLABELLED)).isTrue();
        assertThat(matches("!example.com/team", CPU_POOL)).isTrue();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"tier in (gpu,cpu)", "tier in (gpu, cpu)", "tier  in  ( gpu , cpu )"})
    void inMatchesAnyOfTheValues(String selector) {
        assertThat(matches(selector, GPU_POOL)).isTrue();
        assertThat(matches(selector, CPU_POOL)).isTrue();
        assertThat(matches(selector, Map.of("tier", "tpu"))).isFalse();
    }

    @Test
    void notInMatchesOtherValues() {
        assertThat(matches("env notin (prod,staging)", GPU_POOL)).isFalse();
        assertThat(matches("env notin (prod,staging)", CPU_POOL)).isTrue();
    }

    @Test
    void setBasedRequirementsJudgePoolsWithoutTheLabelInsteadOfFailing() {
        assertThat(matches("tier in (gpu,cpu)", UNLABELLED)).as("in").isFalse();
        assertThat(matches("env notin (prod,staging)", UNLABELLED)).as("notin").isTrue();
        assertThat(LabelSelector.parse("tier in (gpu)").test(null))
                .as("a pool without labels")
                .isFalse();
    }

    @ParameterizedTest(name = "\"{0}\" matches the GPU pool: {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tier=gpu,env=prod                      | true",
                "tier=gpu,env=dev                       | false",
                "tier in (gpu,cpu),env notin (dev),!foo | true",
                "tier in (gpu,cpu),env notin (prod)     | false",
                "example.com/team=ml , tier             | true",
                "example.com/team==ml,!tier             | false",
            })
    void everyRequirementMustHold(String selector, boolean expected) {
        assertThat(matches(selector, GPU_POOL)).isEqualTo(expected);
    }

    @Test
    void anEmptyValueMatchesAnEmptyLabel() {
        assertThat(matches("tier=", Map.of("tier", ""))).isTrue();
        assertThat(matches("tier=", GPU_POOL)).isFalse();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(
            strings = {
                "tier=gpu,,env=prod",
                "tier=gpu,",
                ",tier=gpu",
                "tier gpu",
                "tier in gpu",
                "tier in (gpu",
                "(tier)"
            })
    void shouldRejectASelectorItCannotParse(String selector) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LabelSelector.parse(selector))
                .withMessageContaining("label selector");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"=gpu", "!=gpu", "==gpu", "!"})
    void shouldRejectARequirementWithoutAKey(String selector) {
        assertThatIllegalArgumentException().isThrownBy(() -> LabelSelector.parse(selector));
    }
}
