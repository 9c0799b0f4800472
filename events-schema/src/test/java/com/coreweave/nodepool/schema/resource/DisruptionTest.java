package com.coreweave.nodepool.schema.resource;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Json;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DisruptionTest {

    @Test
    void shouldReadKarpentersShapeFromAManifest() throws Exception {
        NodePoolSpec spec = Json.mapper().readValue("""
                        {"instanceType": "gd-8xh100ib-i128", "targetNodes": 5,
                         "disruption": {"budgets": [
                           {"nodes": "20%"},
                           {"nodes": "0", "schedule": "0 9 * * 1-5", "duration": "8h", "reasons": ["ScaleDown"]},
                           {"nodes": "2", "maxPerWindow": 3, "window": "10m"}]}}
                        """, NodePoolSpec.class);

        assertThat(spec.budgets())
                .containsExactly(
                        new Disruption.Budget("20%", null, null, null, null, null),
                        new Disruption.Budget("0", "0 9 * * 1-5", "8h", List.of("ScaleDown"), null, null),
                        new Disruption.Budget("2", null, null, null, 3, "10m"));
        assertThat(spec.withDefaults("us-east-04a").budgets()).isEqualTo(spec.budgets());
        assertThat(spec.budgets()).allSatisfy(b -> assertThat(b.errors()).isEmpty());
    }

    @Test
    void shouldNameEveryFieldThatDoesNotGoTogether() {
        assertThat(new Disruption.Budget("1", "0 9 * * *", null, List.of("Drifted"), 2, null).errors())
                .containsExactly(
                        "duration: Required value: a budget with a schedule needs a duration",
                        "window: Required value: a budget with maxPerWindow needs a window",
                        "reasons: Unsupported value: \"Drifted\": supported values: \"ScaleDown\", \"Reconfigure\","
                                + " \"Unhealthy\"");
        assertThat(new Disruption.Budget("1", "0 25 * * *", "745h", null, null, "0s").errors())
                .containsExactly(
                        "schedule: Invalid value: \"0 25 * * *\": hour must be within 0 and 23, was 25",
                        "duration: Invalid value: \"745h\": must be at most 744h",
                        "maxPerWindow: Required value: a budget with a window needs maxPerWindow",
                        "window: Invalid value: \"0s\": must be longer than zero");
    }

    @Test
    void shouldReadDurationsAsKarpenterWritesThem() {
        assertThat(Disruption.duration("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Disruption.duration("45s")).isEqualTo(Duration.ofSeconds(45));
        assertThat(Disruption.duration("")).isNull();
        assertThat(Disruption.duration("1d")).isNull();
    }
}
