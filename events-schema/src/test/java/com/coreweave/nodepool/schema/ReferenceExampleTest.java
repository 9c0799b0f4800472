package com.coreweave.nodepool.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodePool;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The reference's own "Healthy Node Pools" example reads into the model and writes back unchanged. */
class ReferenceExampleTest {

    @Test
    void healthyNodePoolExampleRoundTripsThroughYamlAndJson() throws Exception {
        NodePool pool = Json.yaml().readValue(Golden.read("healthy-nodepool.yaml"), NodePool.class);

        assertThat(pool.metadata().uid()).isEqualTo("9311678d-4064-45b8-8439-b943250e5852");
        assertThat(pool.metadata().creationTimestamp()).isEqualTo(Instant.parse("2025-06-09T14:48:54Z"));
        assertThat(pool.spec().instanceType()).isEqualTo("gd-8xa100-i128");
        assertThat(pool.spec().scaleDownStrategy()).isEqualTo("IdleOnly");
        assertThat(pool.status().currentNodes()).isEqualTo(1);
        assertThat(pool.status().condition(Conditions.AT_TARGET).reason()).isEqualTo(Conditions.AtTarget.TARGET_MET);
        assertThat(pool.status()
                        .condition(Conditions.NODE_RECONFIGURATION_REQUIRED)
                        .status())
                .isEqualTo("False");

        Golden.assertMatches("healthy-nodepool.json", pool);
        NodePool again = Json.yaml().readValue(Json.yaml().writeValueAsString(pool), NodePool.class);
        assertThat(again).isEqualTo(pool);
    }
}
