package com.coreweave.nodepool.provisioner.domain.disruption;

import static com.coreweave.nodepool.provisioner.domain.Fixtures.policy;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.spec;
import static com.coreweave.nodepool.provisioner.domain.Fixtures.withBudgets;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.schema.resource.Disruption.Budget;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DisruptionBudgetTest {

    static final ProvisioningPolicy POLICY = policy(Duration.ofSeconds(10));

    @Test
    void shouldRoundAPercentageUpAsKarpenterDoes() {
        DisruptionBudget twenty = DisruptionBudget.of(new Budget("20%", null, null, null, null, null));

        assertThat(IntStream.of(0, 4, 5, 6, 14, 100).map(twenty::nodes).toArray())
                .containsExactly(0, 1, 1, 2, 3, 20);
        assertThat(DisruptionBudget.of(new Budget("0%", null, null, null, null, null))
                        .nodes(50))
                .isZero();
        assertThat(DisruptionBudget.of(new Budget("3", null, null, null, null, null))
                        .nodes(2))
                .isEqualTo(3);
    }

    @Test
    void shouldKeepThePlatformsRepairBudgetForAPoolWithoutBudgets() {
        List<DisruptionBudget> budgets = DisruptionBudget.of(spec(5), POLICY);

        assertThat(budgets)
                .extracting(b -> b.describe(5))
                .containsExactly(
                        "the platform's default budget nodes \"20%\" (1 of 5)",
                        "the platform's default budget nodes \"" + POLICY.maxConcurrentReboots() + "\"");
        assertThat(budgets.getFirst().nodes(0))
                .as("one node at a time, however small the pool")
                .isEqualTo(1);
        assertThat(budgets).noneMatch(b -> b.governs(DisruptionReason.ScaleDown));
    }

    @Test
    void shouldReplaceTheDefaultOnlyForTheReasonsAPoolsBudgetsName() {
        List<DisruptionBudget> budgets = DisruptionBudget.of(
                withBudgets(spec(5), new Budget("0", "0 9 * * 1-5", "8h", List.of("ScaleDown"), null, null)), POLICY);

        assertThat(budgets).hasSize(3);
        assertThat(budgets.stream().filter(b -> b.governs(DisruptionReason.Unhealthy)))
                .singleElement()
                .satisfies(b -> assertThat(b.platformDefault()).isTrue());
    }

    @Test
    void shouldBeInForceForItsDurationAfterEachMatchOfItsSchedule() {
        DisruptionBudget weekdays =
                DisruptionBudget.of(new Budget("0", "0 9 * * 1-5", "8h", List.of("ScaleDown"), null, null));

        assertThat(weekdays.inForce(Instant.parse("2026-11-30T09:00:00Z"))).isTrue();
        assertThat(weekdays.inForce(Instant.parse("2026-11-30T16:59:59Z"))).isTrue();
        assertThat(weekdays.inForce(Instant.parse("2026-11-30T17:00:00Z"))).isFalse();
        assertThat(weekdays.inForce(Instant.parse("2026-11-29T12:00:00Z")))
                .as("Sunday")
                .isFalse();
        assertThat(weekdays.describe(5)).isEqualTo("budget nodes \"0\" from \"0 9 * * 1-5\" for 8h");
    }

    @Test
    void shouldGovernEveryReasonWhenItNamesNone() {
        DisruptionBudget all = DisruptionBudget.of(new Budget("1", null, null, null, 2, "90s"));

        assertThat(DisruptionReason.values()).allMatch(all::governs);
        assertThat(all.describe(5)).isEqualTo("budget nodes \"1\", at most 2 per 1m30s");
    }
}
