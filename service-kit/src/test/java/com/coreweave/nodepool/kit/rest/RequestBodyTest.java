package com.coreweave.nodepool.kit.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Status;
import jakarta.ws.rs.core.MediaType;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class RequestBodyTest {

    private static final String EXPECTED = "{\"add\": n}";

    record Add(Integer add) {}

    @Test
    void aJsonBodyIsATree() {
        assertThat(RequestBody.tree("{\"add\": 2}", EXPECTED).path("add").asInt())
                .isEqualTo(2);
    }

    @Test
    void aYamlBodyIsReadAsYamlWhenTheContentTypeSaysSo() {
        JsonNode tree = RequestBody.tree("metadata:\n  name: p\n", new MediaType("application", "yaml"), EXPECTED);

        assertThat(tree.path("metadata").path("name").asText()).isEqualTo("p");
    }

    @Test
    void noBodyIsA400SayingWhatWasExpected() {
        for (String body : new String[] {null, "", "  \n"}) {
            assertThat(refusal(() -> RequestBody.tree(body, EXPECTED)))
                    .isEqualTo("the request body is empty; expected {\"add\": n}");
        }
    }

    @Test
    void aBodyThatIsNotJsonIsA400WithTheParsersFirstLine() {
        String message = refusal(() -> RequestBody.tree("{\"add\": ", EXPECTED));

        assertThat(message).startsWith("the request body is not valid JSON: ").doesNotContain("\n");
    }

    @Test
    void aBodyThatIsNotYamlSaysYaml() {
        assertThat(refusal(() -> RequestBody.tree("a: [", new MediaType("application", "yaml"), EXPECTED)))
                .startsWith("the request body is not valid YAML: ");
    }

    @Test
    void aBodyOfTheWrongTypeIsA400NamingWhatWasExpected() {
        assertThat(refusal(() -> RequestBody.object("[1]", EXPECTED)))
                .isEqualTo("the request body is not {\"add\": n}");
        assertThat(refusal(() -> RequestBody.value("{\"add\": \"many\"}", Add.class, EXPECTED)))
                .startsWith("the request body is not {\"add\": n}: ");
        assertThat(refusal(() -> RequestBody.value("null", Add.class, EXPECTED)))
                .isEqualTo("the request body is not {\"add\": n}");
    }

    @Test
    void aBodyThatBindsIsItsValue() {
        assertThat(RequestBody.value("{\"add\": 3}", Add.class, EXPECTED)).isEqualTo(new Add(3));
    }

    private static String refusal(ThrowingCallable read) {
        Throwable thrown = catchThrowable(read);
        assertThat(thrown).isInstanceOf(ApiException.class);
        Status status = ((ApiException) thrown).status();
        assertThat(status.getCode()).isEqualTo(400);
        assertThat(status.getReason()).isEqualTo("BadRequest");
        return status.getMessage();
    }
}
