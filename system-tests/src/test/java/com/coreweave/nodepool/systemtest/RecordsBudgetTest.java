package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordsBudgetTest {

    private static final String FILE = """
            # a comment
            create nodepool-events 2   # created, scaled up
            create nodepool-status 1   # the status once at target
            create total 3
            delete nodepool-events 1   # deleted
            delete total 1
            """;

    @Test
    void shouldAcceptAnOperationWithinItsBudget() {
        RecordsBudget budget = RecordsBudget.parse(FILE);

        assertThat(budget.overruns("create", Map.of("nodepool-events", 2L, "nodepool-status", 1L)))
                .isEmpty();
        assertThat(budget.total("create")).isEqualTo(3);
    }

    @Test
    void shouldNameATopicOverItsBudgetAndATopicWithoutOne() {
        RecordsBudget budget = RecordsBudget.parse(FILE);

        assertThat(budget.overruns("delete", Map.of("nodepool-events", 1L, "org-pools-counted", 1L)))
                .containsExactly("delete org-pools-counted: 1 records, budget 0", "delete total: 2 records, budget 1");
        assertThat(budget.overruns("create", Map.of("nodepool-events", 3L)))
                .containsExactly("create nodepool-events: 3 records, budget 2");
    }

    @Test
    void shouldRefuseATopicWithoutItsReason() {
        assertThatThrownBy(() -> RecordsBudget.parse("create nodepool-events 2\n"))
                .hasMessageContaining("needs its reason");
        assertThatThrownBy(() -> RecordsBudget.parse("create a 1 # x\ncreate a 2 # y\n"))
                .hasMessageContaining("listed twice");
    }
}
