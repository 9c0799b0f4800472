package com.coreweave.nodepool.kit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InjectedFaultsTest {

    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    final InjectedFaults faults = new InjectedFaults(Set.of("quota-check", "node-delivery"));

    static ArmedFault fault(String point, FaultScope scope, Integer count, Instant expires) {
        return new ArmedFault(point, scope, count, expires, "drill", "admin", NOW);
    }

    @Test
    void shouldFailOnlyChecksInsideTheScopeAtThePoint() {
        faults.arm(fault("quota-check", new FaultScope(null, "demo", "p1"), null, null));

        assertThat(faults.fire("quota-check", "US-EAST-04A", "demo", "p1", NOW))
                .isEqualTo("injected fault quota-check@org=demo,pool=p1 armed by admin: drill");
        assertThat(faults.fire("quota-check", "US-EAST-04A", "demo", "p2", NOW)).isNull();
        assertThat(faults.fire("quota-check", "US-EAST-04A", "other", "p1", NOW))
                .isNull();
        assertThat(faults.fire("node-delivery", "US-EAST-04A", "demo", "p1", NOW))
                .isNull();
        assertThat(faults.fire("quota-check", "US-EAST-04A", "demo", null, NOW))
                .as("a check that knows no pool is outside a pool's scope")
                .isNull();
    }

    @Test
    void shouldFailEveryPoolOfAZone() {
        faults.arm(fault("node-delivery", new FaultScope("US-EAST-08A", null, null), null, null));

        assertThat(faults.fire("node-delivery", "US-EAST-08A", "demo", "p1", NOW))
                .isNotNull();
        assertThat(faults.fire("node-delivery", "US-EAST-08A", "other", "p9", NOW))
                .isNotNull();
        assertThat(faults.fire("node-delivery", "US-EAST-04A", "demo", "p1", NOW))
                .isNull();
    }

    @Test
    void shouldFireAsOftenAsCountedThenBeGone() {
        faults.arm(fault("quota-check", new FaultScope(null, "demo", null), 2, null));

        assertThat(faults.fire("quota-check", "z", "demo", "a", NOW)).isNotNull();
        assertThat(faults.armed(NOW))
                .singleElement()
                .extracting(ArmedFault::remaining)
                .isEqualTo(1);
        assertThat(faults.fire("quota-check", "z", "demo", "b", NOW)).isNotNull();
        assertThat(faults.fire("quota-check", "z", "demo", "c", NOW)).isNull();
        assertThat(faults.armed(NOW)).isEmpty();
    }

    @Test
    void shouldStopFiringOnceExpired() {
        faults.arm(fault("quota-check", new FaultScope("z", null, null), null, NOW.plusSeconds(60)));

        assertThat(faults.fire("quota-check", "z", "demo", "a", NOW.plusSeconds(59)))
                .isNotNull();
        assertThat(faults.fire("quota-check", "z", "demo", "a", NOW.plusSeconds(60)))
                .isNull();
        assertThat(faults.armed(NOW.plusSeconds(60))).isEmpty();
    }

    @Test
    void shouldReplaceAFaultArmedAgainAtTheSameScopeAndDisarmIt() {
        FaultScope scope = new FaultScope(null, "demo", "p1");
        faults.arm(fault("quota-check", scope, 1, null));
        faults.arm(fault("quota-check", scope, 5, null));

        assertThat(faults.armed(NOW))
                .singleElement()
                .extracting(ArmedFault::remaining)
                .isEqualTo(5);
        assertThat(faults.disarm("quota-check", scope)).isTrue();
        assertThat(faults.disarm("quota-check", scope)).isFalse();
        assertThat(faults.fire("quota-check", "z", "demo", "p1", NOW)).isNull();
    }

    @Test
    void shouldRefuseUnknownPointsAndUnscopedFaults() {
        assertThatThrownBy(() -> faults.arm(fault("validation", new FaultScope("z", null, null), null, null)))
                .hasMessageContaining("no fault point validation");
        assertThatThrownBy(() -> new FaultScope(null, null, null)).hasMessageContaining("never to everything");
        assertThatThrownBy(() -> new FaultScope(null, null, "p1")).hasMessageContaining("names its org");
        assertThat(InjectedFaults.OFF.enabled()).isFalse();
        assertThatThrownBy(
                        () -> InjectedFaults.OFF.arm(fault("quota-check", new FaultScope("z", null, null), null, null)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
