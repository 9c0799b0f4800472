package com.coreweave.nodepool.schema.topics;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Limits;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

    @Test
    void aShortReasonStaysAsItIs() {
        assertThat(DeadLetters.reason("value is not JSON")).isEqualTo("value is not JSON");
        assertThat(DeadLetters.reason(null)).isEmpty();
    }

    @Test
    void aValidationMessageOfTenThousandCausesIsCutToOneKibibyte() {
        String causes = "spec.nodeLabels[k]: Invalid value: \"v\": must be 63 characters or less; ".repeat(10_000);
        String reason = DeadLetters.reason(causes);
        assertThat(utf8(reason))
                .isLessThanOrEqualTo(Limits.MAX_DLQ_REASON_BYTES)
                .isGreaterThan(1000);
        assertThat(reason).endsWith("…").startsWith("spec.nodeLabels[k]: Invalid value");
    }

    @Test
    void cutsOnACharacterBoundary() {
        // 3-byte characters and 4-byte surrogate pairs, so the limit falls inside a character either way.
        for (String text : new String[] {"ä".repeat(600), "€".repeat(400), "😀".repeat(300), "a" + "😀".repeat(300)}) {
            String reason = DeadLetters.reason(text);
            assertThat(utf8(reason)).isLessThanOrEqualTo(Limits.MAX_DLQ_REASON_BYTES);
            String kept = reason.substring(0, reason.length() - 1);
            assertThat(text).startsWith(kept);
            assertThat(Character.isHighSurrogate(kept.charAt(kept.length() - 1)))
                    .isFalse();
            assertThat(new String(kept.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
                    .isEqualTo(kept);
        }
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
