package com.coreweave.nodepool.quota.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.QuotaKey;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import org.junit.jupiter.api.Test;

/** An operator's quota request: what is accepted, and the Status code and causes of what is not. */
class QuotaRequestTest {

    private static final QuotaKey KEY = new QuotaKey("demo", "US-EAST-04A", "gd-8xa100-i128");

    private static Status refusal(Runnable call) {
        try {
            call.run();
        } catch (ApiException e) {
            return e.status();
        }
        throw new AssertionError("expected a refusal");
    }

    @Test
    void shouldReadMaxNodes() {
        assertThat(QuotaRequest.maxNodes("{\"maxNodes\": 16}", KEY)).isEqualTo(16);
        assertThat(QuotaRequest.maxNodes("{\"maxNodes\": 0}", KEY)).isZero();
        assertThat(QuotaRequest.key("demo", "US-EAST-04A", "gd-8xa100-i128")).isEqualTo(KEY);
    }

    @Test
    void shouldAnswer400ForABodyThatIsNotJson() {
        assertThat(refusal(() -> QuotaRequest.maxNodes("{maxNodes", KEY)).getCode())
                .isEqualTo(400);
        assertThat(refusal(() -> QuotaRequest.maxNodes("", KEY)).getCode()).isEqualTo(400);
    }

    @Test
    void shouldAnswer422WithTheBadFieldForAnInvalidBody() {
        for (String body : new String[] {
            "{\"maxNodes\": -1}",
            "{\"maxNodes\": 2.5}",
            "{\"maxNodes\": \"4\"}",
            "{\"maxNodes\": 3000000000}",
            "{}",
            "{\"maxNodes\": null}"
        }) {
            Status status = refusal(() -> QuotaRequest.maxNodes(body, KEY));
            assertThat(status.getCode()).as(body).isEqualTo(422);
            assertThat(status.getReason()).isEqualTo("Invalid");
            assertThat(status.getDetails().getCauses())
                    .as(body)
                    .singleElement()
                    .satisfies(c -> assertThat(c.getField()).isEqualTo("maxNodes"));
        }
        assertThat(refusal(() -> QuotaRequest.maxNodes("[16]", KEY)).getCode()).isEqualTo(422);
        Status unknown = refusal(() -> QuotaRequest.maxNodes("{\"maxNodes\": 1, \"max\": 2}", KEY));
        assertThat(unknown.getDetails().getCauses())
                .singleElement()
                .satisfies(c -> assertThat(c.getField()).isEqualTo("max"));
    }

    @Test
    void shouldAnswer422ForABadName() {
        Status status = refusal(() -> QuotaRequest.key("demo", " ", "gd 8x"));

        assertThat(status.getCode()).isEqualTo(422);
        assertThat(status.getDetails().getCauses())
                .extracting(StatusCause::getField)
                .containsExactly("zone", "instanceType");
    }
}
