package com.coreweave.nodepool.provisioner.domain.controllers.configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Validation of an operator's node release body, one cause per bad field. */
class ReleaseRequestTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant NOW = Fixtures.T0;

    static JsonNode body(String json) {
        try {
            return JSON.readTree(json.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void shouldAcceptAValidReleaseAndPublishItWithItsSummary() {
        JsonNode body = body("{'releaseTrain': 'stable', 'version': '2026.11.2', 'summary': ['ncore 2026.11.2']}");

        assertThat(ReleaseRequest.problems(body)).isEmpty();
        assertThat(ReleaseRequest.of(body, NOW))
                .isEqualTo(new NodeReleasePublished("stable", "2026.11.2", List.of("ncore 2026.11.2"), NOW));
    }

    @Test
    void shouldAcceptAReleaseWithoutASummary() {
        JsonNode body = body("{'releaseTrain': 'latest', 'version': '2026.12.0', 'summary': null}");

        assertThat(ReleaseRequest.problems(body)).isEmpty();
        assertThat(ReleaseRequest.of(body, NOW).summary()).isEmpty();
    }

    @Test
    void shouldRequireTheReleaseTrainAndTheVersion() {
        assertThat(ReleaseRequest.problems(body("{}")))
                .extracting(StatusCause::getField, StatusCause::getReason)
                .containsExactly(tuple("releaseTrain", Statuses.REQUIRED), tuple("version", Statuses.REQUIRED));
    }

    @Test
    void shouldRefuseAnUnknownReleaseTrain() {
        assertThat(ReleaseRequest.problems(body("{'releaseTrain': 'nightly', 'version': '1'}")))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.getField()).isEqualTo("releaseTrain");
                    assertThat(c.getReason()).isEqualTo(Statuses.INVALID);
                    assertThat(c.getMessage()).contains("stable", "latest");
                });
    }

    @Test
    void shouldRefuseABlankANonTextualOrAnOverlongVersion() {
        String longest = "v".repeat(63);
        assertThat(ReleaseRequest.problems(body("{'releaseTrain': 'stable', 'version': '" + longest + "'}")))
                .isEmpty();

        for (String version : new String[] {"'   '", "12", "'" + longest + "x'"}) {
            assertThat(ReleaseRequest.problems(body("{'releaseTrain': 'stable', 'version': " + version + "}")))
                    .as(version)
                    .extracting(StatusCause::getField, StatusCause::getReason)
                    .containsExactly(tuple("version", Statuses.INVALID));
        }
    }

    @Test
    void shouldNameEachSummaryLineThatIsNotAString() {
        assertThat(ReleaseRequest.problems(
                        body("{'releaseTrain': 'stable', 'version': '1', 'summary': ['ok', 3, 'ok', {}]}")))
                .extracting(StatusCause::getField)
                .containsExactly("summary[1]", "summary[3]");
        assertThat(ReleaseRequest.problems(body("{'releaseTrain': 'stable', 'version': '1', 'summary': 'one'}")))
                .extracting(StatusCause::getField)
                .containsExactly("summary");
    }

    @Test
    void shouldRefuseUnknownFieldsAndABodyThatIsNoObject() {
        assertThat(ReleaseRequest.problems(body("{'releaseTrain': 'stable', 'version': '1', 'train': 'x'}")))
                .extracting(StatusCause::getField, StatusCause::getMessage)
                .containsExactly(tuple("train", "unknown field \"train\""));
        assertThat(ReleaseRequest.problems(body("['stable']")))
                .extracting(StatusCause::getField)
                .containsExactly("");
        assertThat(ReleaseRequest.problems(null)).hasSize(1);
    }
}
