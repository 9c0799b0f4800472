package com.coreweave.nodepool.api.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.api.domain.ConditionCensus.ConditionState;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pools per condition state an operator's dashboard shows, as pools change status and go. */
class ConditionCensusTest {

    private static final ConditionState AT_TARGET = new ConditionState("AtTarget", "True", "TargetMet");
    private static final ConditionState UNDER = new ConditionState("AtTarget", "False", "UnderTarget");
    private static final ConditionState VALID = new ConditionState("Validated", "True", "Valid");

    private final List<ConditionState> seen = new ArrayList<>();
    private final ConditionCensus census = new ConditionCensus(seen::add);

    @Test
    void shouldMoveAPoolFromItsOldConditionStatesToItsNewOnes() {
        census.change(null, "Validated=True/Valid;AtTarget=False/UnderTarget");
        census.change(null, "Validated=True/Valid;AtTarget=False/UnderTarget");

        census.change(
                "Validated=True/Valid;AtTarget=False/UnderTarget", "Validated=True/Valid;AtTarget=True/TargetMet");

        assertThat(census.count(VALID)).isEqualTo(2);
        assertThat(census.count(UNDER)).isEqualTo(1);
        assertThat(census.count(AT_TARGET)).isEqualTo(1);
    }

    @Test
    void shouldCountAPoolThatIsGoneNoMore() {
        census.change(null, "AtTarget=True/TargetMet");

        census.change("AtTarget=True/TargetMet", null);

        assertThat(census.count(AT_TARGET)).isZero();
    }

    @Test
    void shouldTellOfEachConditionStateOnceTheFirstTimeItIsCounted() {
        census.change(null, "AtTarget=True/TargetMet");
        census.change(null, "AtTarget=True/TargetMet;Validated=True/Valid");

        assertThat(seen).containsExactly(AT_TARGET, VALID);
    }

    @Test
    void shouldCountAPoolWithoutStatusInNoConditionState() {
        NodePool pool = NodePool.of(ObjectMeta.named("p"), null, null);

        census.change(null, ConditionCensus.summary(pool));

        assertThat(seen).as("no condition state counted").isEmpty();
    }
}
