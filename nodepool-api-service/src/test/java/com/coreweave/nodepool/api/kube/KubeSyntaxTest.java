package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The boundaries of apimachinery's syntax rules; how they surface as causes is in {@link ManifestValidatorTest}. */
class KubeSyntaxTest {

    private static final String LABEL_63 = "a".repeat(63);

    @Test
    void aSubdomainMayBeExactly253Characters() {
        String name = String.join(".", LABEL_63, LABEL_63, LABEL_63, "a".repeat(61));

        assertThat(name).hasSize(253);
        assertThat(KubeSyntax.dnsSubdomainError(name)).isNull();
        assertThat(KubeSyntax.dnsSubdomainError(name + "a")).isEqualTo("must be no more than 253 characters");
    }

    @Test
    void anEmptyNameSaysItMustNotBeEmpty() {
        assertThat(KubeSyntax.dnsSubdomainError("")).isEqualTo("must not be empty");
    }

    @Test
    void aQualifiedNamePartMayBe63CharactersWithAPrefixOfASubdomain() {
        assertThat(KubeSyntax.qualifiedNameError("example.com/" + LABEL_63)).isNull();
        assertThat(KubeSyntax.qualifiedNameError("example.com/" + LABEL_63 + "a"))
                .isEqualTo("name part must be no more than 63 characters");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"MyName", "my.name", "123-abc", "a_b", "x", "kubernetes.io/hostname"})
    void acceptsTheQualifiedNamesKubernetesAccepts(String key) {
        assertThat(KubeSyntax.qualifiedNameError(key)).isNull();
    }

    @Test
    void explainsWhichPartOfAQualifiedNameIsWrong() {
        assertThat(KubeSyntax.qualifiedNameError("/name")).isEqualTo("prefix part must be non-empty");
        assertThat(KubeSyntax.qualifiedNameError("Bad_Prefix/name")).startsWith("prefix part a lowercase RFC 1123");
        assertThat(KubeSyntax.qualifiedNameError("example.com/")).isEqualTo("name part must be non-empty");
        assertThat(KubeSyntax.qualifiedNameError("_name")).startsWith("name part must consist of alphanumeric");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "true", "v1.2_rc-3", "A"})
    void acceptsEmptyAndWellFormedLabelValues(String value) {
        assertThat(KubeSyntax.labelValueError(value)).isNull();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"-true", "true.", "a b", "a/b", "é"})
    void rejectsLabelValuesThatDoNotStartAndEndAlphanumeric(String value) {
        assertThat(KubeSyntax.labelValueError(value)).startsWith("a valid label must be an empty string");
    }

    @Test
    void aLabelValueMayBe63Characters() {
        assertThat(KubeSyntax.labelValueError(LABEL_63)).isNull();
        assertThat(KubeSyntax.labelValueError(LABEL_63 + "a")).isEqualTo("must be no more than 63 characters");
    }
}
