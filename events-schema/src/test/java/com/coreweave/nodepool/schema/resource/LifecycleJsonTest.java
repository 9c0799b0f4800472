package com.coreweave.nodepool.schema.resource;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Json;
import org.junit.jupiter.api.Test;

/** A pool's lifecycle as users write it and the services read it: maxUnhealthy kept, absent when unset. */
class LifecycleJsonTest {

    @Test
    void maxUnhealthySurvivesTheJsonAndTheDefaultsAndIsAbsentWhenUnset() throws Exception {
        Lifecycle read = Json.mapper()
                .readValue("{\"maxUnhealthy\":\"40%\",\"scaleDownStrategy\":\"PreferIdle\"}", Lifecycle.class);
        assertThat(read).isEqualTo(new Lifecycle(Lifecycle.PREFER_IDLE, null, "40%"));

        NodePoolSpec spec = Json.mapper()
                .readValue(
                        "{\"instanceType\":\"gd-8xa100-i128\",\"targetNodes\":2,\"lifecycle\":{\"maxUnhealthy\":\"3\"}}",
                        NodePoolSpec.class)
                .withDefaults("US-EAST-04A");
        assertThat(spec.lifecycle()).isEqualTo(new Lifecycle(Lifecycle.IDLE_ONLY, false, "3"));
        assertThat(Json.mapper().writeValueAsString(spec)).contains("\"maxUnhealthy\":\"3\"");

        assertThat(Json.mapper().writeValueAsString(new Lifecycle(Lifecycle.IDLE_ONLY, false)))
                .doesNotContain("maxUnhealthy");
    }
}
