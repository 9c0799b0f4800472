package com.coreweave.nodepool.kit.rest;

import static com.coreweave.nodepool.schema.resource.Statuses.INVALID;
import static com.coreweave.nodepool.schema.resource.Statuses.REQUIRED;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldErrorsTest {

    @Test
    void eachErrorIsACauseWithItsReasonFieldAndMessage() {
        FieldErrors errors = new FieldErrors();
        errors.add(REQUIRED, "Required value", "maxNodes");

        StatusCause cause = errors.list().getFirst();
        assertThat(cause.getReason()).isEqualTo("FieldValueRequired");
        assertThat(cause.getField()).isEqualTo("maxNodes");
        assertThat(cause.getMessage()).isEqualTo("Required value");
    }

    @Test
    void theFirstHundredAreListedAndTheRestCountedInOneMore() {
        FieldErrors errors = new FieldErrors();
        for (int i = 0; i < 10_000; i++) {
            errors.add(INVALID, "Invalid value", "spec.taints[" + i + "]");
        }

        List<StatusCause> listed = errors.list();
        assertThat(errors.count()).isEqualTo(10_000);
        assertThat(listed).hasSize(Limits.MAX_CAUSES + 1);
        assertThat(listed.getLast().getReason()).isEqualTo(Statuses.OMITTED);
        assertThat(Statuses.standsFor(listed.getLast())).isEqualTo(10_000 - Limits.MAX_CAUSES);
    }

    @Test
    void aStatusListOfCausesIsReadBackWithItsCount() {
        FieldErrors errors = new FieldErrors();
        for (int i = 0; i < 250; i++) {
            errors.add(INVALID, "Invalid value", "f" + i);
        }

        assertThat(FieldErrors.of(errors.list()).count()).isEqualTo(250);
    }

    @Test
    void aSummaryFitsItsBytesAndCountsWhatItLeavesOut() {
        FieldErrors errors = new FieldErrors();
        for (int i = 0; i < 1_000; i++) {
            errors.add(INVALID, "Invalid value: \"x\"", "spec.taints[" + i + "]");
        }

        String summary = errors.summary("NodePool \"p\" is invalid: ", 1024);
        assertThat(summary.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1024);
        assertThat(summary)
                .startsWith("NodePool \"p\" is invalid: spec.taints[0]: Invalid value")
                .endsWith("more causes)");
    }

    @Test
    void aBadValueIsShownUpTo256Characters() {
        assertThat(FieldErrors.shown("x".repeat(300)))
                .hasSize(FieldErrors.SHOWN_CHARS + 1)
                .endsWith("…");
        assertThat(FieldErrors.shown("short")).isEqualTo("short");
    }

    @Test
    void oneErrorRefusedIsA422InvalidStatusOfItsKindAndName() {
        ApiException refusal =
                FieldErrors.one(REQUIRED, "Required value", "subject").refusal("NodeAlert", "a-1");

        assertThat(refusal.status().getCode()).isEqualTo(422);
        assertThat(refusal.status().getReason()).isEqualTo("Invalid");
        assertThat(refusal.status().getDetails().getKind()).isEqualTo("NodeAlert");
        assertThat(refusal.status().getDetails().getName()).isEqualTo("a-1");
        assertThat(refusal.status().getDetails().getCauses())
                .singleElement()
                .satisfies(c -> assertThat(c.getField()).isEqualTo("subject"));
    }
}
