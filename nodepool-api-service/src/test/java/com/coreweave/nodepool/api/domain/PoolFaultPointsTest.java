package com.coreweave.nodepool.api.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.faults.ArmedFault;
import com.coreweave.nodepool.kit.faults.FaultScope;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PoolFaultPointsTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    final InjectedFaults faults = new InjectedFaults(PoolFaultPoints.POINTS.names());
    final NodePoolSpec spec = Fixtures.spec().withDefaults();

    void arm(String point, FaultScope scope, Integer count) {
        faults.arm(new ArmedFault(point, scope, count, null, "drill", "admin", NOW));
    }

    @Test
    void aValidationFaultOfTheZoneIsAnInternalErrorThatSaysItWasInjected() {
        arm(PoolFaultPoints.VALIDATION, new FaultScope(Fixtures.ZONE, null, null), 1);

        PlatformValidator.Verdict verdict =
                PoolFaultPoints.validation(faults, new PoolKey(Fixtures.ORG, Fixtures.POOL), spec, NOW);

        assertThat(verdict.validation().reason()).isEqualTo(Conditions.Validated.INTERNAL_ERROR);
        assertThat(verdict.validation().message())
                .contains("injected fault validation@zone=" + Fixtures.ZONE)
                .endsWith("the NodePool will be validated again.");
        assertThat(PoolFaultPoints.validation(faults, new PoolKey(Fixtures.ORG, Fixtures.POOL), spec, NOW))
                .as("its count is spent")
                .isNull();
    }

    @Test
    void aRequestFaultOfThePoolFailsItsUpdateWithAnInternalError() {
        arm(PoolFaultPoints.NODES_REQUEST, new FaultScope(null, Fixtures.ORG, Fixtures.POOL), null);

        var failure = PoolFaultPoints.requestFailure(faults, Fixtures.accepted(spec), NOW);

        assertThat(failure.getCode()).isEqualTo(500);
        assertThat(failure.getReason()).isEqualTo("InternalError");
        assertThat(PoolFaultPoints.validation(faults, new PoolKey(Fixtures.ORG, "other"), spec, NOW))
                .isNull();
    }
}
