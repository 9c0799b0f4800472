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
    }

    @Test
    void shouldSayWhyADurationIsRefused() {
        assertThat(Disruption.durationError("745h", Disruption.MAX_DURATION)).isEqualTo("must be at most 744h");
        assertThat(Disruption.durationError("0m", Disruption.MAX_DURATION)).isEqualTo("must be longer than zero");
        assertThat(Disruption.durationError("8 hours", Disruption.MAX_DURATION))
                .isEqualTo("must be a duration of hours, minutes and seconds, such as 1h30m");
        assertThat(Disruption.durationError("24h", Disruption.MAX_WINDOW)).isNull();
    }

    @Test
    void shouldReadDurationsAsKarpenterWritesThem() {
        assertThat(Disruption.duration("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Disruption.duration("45s")).isEqualTo(Duration.ofSeconds(45));
        assertThat(Disruption.duration("")).isNull();
        assertThat(Disruption.duration("1d")).isNull();
    }
}
