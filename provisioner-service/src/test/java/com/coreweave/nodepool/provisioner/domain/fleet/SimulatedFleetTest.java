package com.coreweave.nodepool.provisioner.domain.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.Fixtures;
import java.time.Duration;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SimulatedFleetTest {

    static ProvisioningPolicy rate(double rate, long seed) {
        return new ProvisioningPolicy(
                Duration.ZERO,
                rate,
                seed,
                Set.of(Fixtures.BROKEN_IMAGE),
                3,
                Duration.ZERO,
                1,
                ProvisioningPolicy.SCALE_UP_AFTER,
                ProvisioningPolicy.SCALE_DOWN_UNNEEDED_TIME);
    }

    static long failures(ProvisioningPolicy policy) {
        return IntStream.range(0, 4000)
                .filter(i -> SimulatedFleet.bootFailure(policy, Fixtures.spec(1), Fixtures.machine(i), 1) != null)
                .count();
    }

    @Test
    void theSameMachineAttemptAndSeedAlwaysDecideTheSameWay() {
        for (int i = 0; i < 50; i++) {
            double draw = SimulatedFleet.draw(Fixtures.machine(i), 2, 7);
            assertThat(draw)
                    .isEqualTo(SimulatedFleet.draw(Fixtures.machine(i), 2, 7))
                    .isBetween(0.0, 1.0);
        }
    }

    @Test
    void theShareOfFailedBootsFollowsTheRate() {
        assertThat(failures(rate(0.0, 0))).isZero();
        assertThat(failures(rate(1.0, 0))).isEqualTo(4000);
        assertThat(failures(rate(0.25, 0))).isBetween(850L, 1150L);
    }

    @Test
    void anotherSeedOrAttemptFailsOtherBoots() {
        var policy = rate(0.5, 1);
        var other = rate(0.5, 2);
        long differ = IntStream.range(0, 200)
                .filter(i -> fails(policy, i, 1) != fails(other, i, 1))
                .count();
        long retriesDiffer = IntStream.range(0, 200)
                .filter(i -> fails(policy, i, 1) != fails(policy, i, 2))
                .count();

        assertThat(differ).isGreaterThan(50);
        assertThat(retriesDiffer).isGreaterThan(50);
    }

    static boolean fails(ProvisioningPolicy policy, int machine, int attempt) {
        return SimulatedFleet.bootFailure(policy, Fixtures.spec(1), Fixtures.machine(machine), attempt) != null;
    }

    @Test
    void aFailingImageNeverBoots() {
        var spec = Fixtures.withImage(Fixtures.spec(1), Fixtures.BROKEN_IMAGE);
        assertThat(SimulatedFleet.bootFailure(rate(0.0, 0), spec, Fixtures.machine(1), 4))
                .contains("image " + Fixtures.BROKEN_IMAGE + " does not boot")
                .contains("attempt 4");
        assertThat(SimulatedFleet.bootFailure(
                        rate(0.0, 0), Fixtures.withImage(Fixtures.spec(1), "good"), Fixtures.machine(1), 1))
                .isNull();
    }
}
