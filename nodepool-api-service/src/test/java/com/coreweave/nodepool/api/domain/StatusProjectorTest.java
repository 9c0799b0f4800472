package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.CREATED;
import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static com.coreweave.nodepool.api.domain.Fixtures.NOW_SECONDS;
import static com.coreweave.nodepool.api.domain.Fixtures.UID;
import static com.coreweave.nodepool.api.domain.Fixtures.VALID;
import static com.coreweave.nodepool.api.domain.Fixtures.accepted;
import static com.coreweave.nodepool.api.domain.Fixtures.beingRemoved;
import static com.coreweave.nodepool.api.domain.Fixtures.capacitySays;
import static com.coreweave.nodepool.api.domain.Fixtures.deleting;
import static com.coreweave.nodepool.api.domain.Fixtures.disabled;
import static com.coreweave.nodepool.api.domain.Fixtures.failing;
import static com.coreweave.nodepool.api.domain.Fixtures.node;
import static com.coreweave.nodepool.api.domain.Fixtures.nodes;
import static com.coreweave.nodepool.api.domain.Fixtures.nodesRemoved;
import static com.coreweave.nodepool.api.domain.Fixtures.quotaSays;
import static com.coreweave.nodepool.api.domain.Fixtures.reconciled;
import static com.coreweave.nodepool.api.domain.Fixtures.ref;
import static com.coreweave.nodepool.api.domain.Fixtures.spec;
import static com.coreweave.nodepool.api.domain.Fixtures.verdicts;
import static com.coreweave.nodepool.api.domain.Fixtures.withDisruption;
import static com.coreweave.nodepool.api.domain.Fixtures.withPendingDemand;
import static com.coreweave.nodepool.api.domain.Fixtures.withVerdicts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.Conditions.AtTarget;
import com.coreweave.nodepool.schema.resource.Conditions.Capacity;
import com.coreweave.nodepool.schema.resource.Conditions.NodesRemoved;
import com.coreweave.nodepool.schema.resource.Conditions.Quota;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.DisruptionStatus;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Node.Phase;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolStatus;
import com.coreweave.nodepool.schema.resource.PendingDemand;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Event;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StatusProjectorTest {

    private static final PoolRef GEN_1 = ref();
    private static final Instant LATER = NOW_SECONDS.plusSeconds(90);

    /** A new pool of one node, as the reference's "Healthy Node Pools" example describes it. */
    private static PoolView healthy() {
        return PoolView.of(accepted(spec().build()))
                .withReconciled(
                        withVerdicts(reconciled(GEN_1, "profile-1"), verdicts(Quota.UNDER, Capacity.SUFFICIENT, 0)))
                .withNodes(nodes(node("n-1", Phase.Registered, "profile-1")));
    }

    private static PoolView pool(Fixtures.SpecBuilder spec) {
        return PoolView.of(accepted(spec.build()));
    }

    private static NodePoolStatus status(PoolView view) {
        return StatusProjector.project(view, NOW).status();
    }

    private static Condition condition(PoolView view, String type) {
        return status(view).condition(type);
    }

    /** The view as it stands after its projection at {@code at} was published. */
    private static PoolView published(PoolView view, Instant at) {
        return view.withPublished(StatusProjector.project(view, at));
    }

    @Test
    void aHealthyPoolLooksLikeTheReferenceExample() {
        NodePoolStatus status = status(healthy());

        assertThat(status.conditions())
                .extracting(Condition::type, Condition::status, Condition::reason, Condition::message)
                .containsExactly(
                        tuple("Validated", "True", "Valid", "NodePool configuration is valid."),
                        tuple(
                                "Capacity",
                                "True",
                                "Sufficient",
                                "Sufficient capacity available for the requested instance type."),
                        tuple("Quota", "True", "Under", "NodePool is within instance type quota."),
                        tuple("AtTarget", "True", "TargetMet", "NodePool has reached its target node count."),
                        tuple(
                                "NodeReconfigurationRequired",
                                "False",
                                "AllNodesUpToDate",
                                "All nodes are on the current configuration."));
        assertThat(status.conditions())
                .extracting(Condition::lastTransitionTime)
                .containsOnly(NOW_SECONDS);
        assertThat(status.currentNodes()).isEqualTo(1);
        assertThat(status.inProgress()).isZero();
        assertThat(status.queuedNodes()).isZero();
        assertThat(status.observedGeneration()).isEqualTo(1L);
        assertThat(status.nodeProfile()).isEqualTo("profile-1");
    }

    @Test
    void aStoredViewsPublishedResourceIsReadAloneAndComesFirst() {
        PoolView view = published(healthy(), NOW);
        byte[] stored = Json.bytes(view);

        assertThat(PoolView.publishedIn(stored)).isEqualTo(view.published());
        assertThat(new String(stored, StandardCharsets.UTF_8)).startsWith("{\"published\":");
        assertThat(PoolView.publishedIn(Json.bytes(healthy())))
                .as("none published yet")
                .isNull();
        assertThat(PoolView.publishedIn("{\"nodes\":{},\"published\":null}".getBytes(StandardCharsets.UTF_8)))
                .isNull();
    }

    @Test
    void aStoredViewsEventsComeNextAndAreReadWithoutTheRest() {
        RecordedEvent recorded = RecordedEvent.ofPool(
                ref(),
                CwEvent.CWNodeRequestQueued,
                "1 node(s) queued awaiting capacity.",
                "c-1",
                "capacity-service",
                NOW);
        PoolView view = published(healthy(), NOW);
        PoolView withEvents =
                view.withEvents(EventFolder.fold(view.events(), recorded).events());
        byte[] stored = Json.bytes(withEvents);

        assertThat(PoolView.eventsIn(stored)).isEqualTo(withEvents.events());
        assertThat(PoolView.eventsIn(stored).events())
                .extracting(Event::getReason)
                .containsExactly(CwEvent.CWNodeRequestQueued.name());
        assertThat(Json.read(stored, PoolView.class).events()).isEqualTo(withEvents.events());
        assertThat(new String(stored, StandardCharsets.UTF_8))
                .as("published first, events next")
                .matches("\\{\"published\":.*\\},\"events\":\\{.*");
        String before = "{\"published\":null,\"nodes\":{}}";
        assertThat(PoolView.eventsIn(before.getBytes(StandardCharsets.UTF_8)))
                .as("a view stored before events moved into it")
                .isEqualTo(PoolEvents.EMPTY);
    }

    @Test
    void anAutoscalingPoolsPendingDemandIsOnItsStatus() {
        PoolView view = PoolView.of(accepted(spec().build()))
                .withReconciled(withPendingDemand(reconciled(GEN_1, "profile-1"), new PendingDemand(3, 1)));

        assertThat(status(view).pendingDemand()).isEqualTo(new PendingDemand(3, 1));
        assertThat(status(healthy()).pendingDemand()).isNull();
    }

    @Test
    void theProjectionIsTheAcceptedPoolWithAStatus() {
        PoolView view = healthy();

        NodePool projected = StatusProjector.project(view, NOW);

        assertThat(projected.withStatus(null)).isEqualTo(view.accepted().nodePool());
        assertThat(projected.apiVersion()).isEqualTo("compute.coreweave.com/v1alpha1");
        assertThat(projected.kind()).isEqualTo("NodePool");
    }

    @Nested
    class Gatekeepers {

        @Test
        void aPoolNotCheckedYetHasNoCapacityOrQuotaCondition() {
            assertThat(status(pool(spec())).conditions())
                    .extracting(Condition::type)
                    .containsExactly("Validated", "AtTarget", "NodeReconfigurationRequired");
        }

        @Test
        void aQuotaDecisionWithoutReasonShowsNoQuotaCondition() {
            assertThat(condition(quotaSays(healthy(), null), Conditions.QUOTA)).isNull();
        }

        @Test
        void aCapacityDecisionWithoutReasonShowsNoCapacityCondition() {
            assertThat(condition(capacitySays(healthy(), null, 0), Conditions.CAPACITY))
                    .isNull();
        }

        @ParameterizedTest(name = "Capacity {0} is {1}")
        @CsvSource({
            "Sufficient, True",
            "Partial, False",
            "NoneAvailable, False",
            "QueuedAwaitingCapacity, False",
            "InternalError, False"
        })
        void capacityIsTrueOnlyWhenSufficient(String reason, String status) {
            Condition capacity = condition(capacitySays(healthy(), reason, 0), Conditions.CAPACITY);

            assertThat(capacity.status()).isEqualTo(status);
            assertThat(capacity.reason()).isEqualTo(reason);
        }

        @ParameterizedTest(name = "Quota {0} is {1}")
        @CsvSource({"Under, True", "Over, False", "NotSet, False", "InternalError, False"})
        void quotaIsTrueOnlyWhenUnder(String reason, String status) {
            Condition quota = condition(quotaSays(healthy(), reason), Conditions.QUOTA);

            assertThat(quota.status()).isEqualTo(status);
            assertThat(quota.reason()).isEqualTo(reason);
        }

        @ParameterizedTest(name = "Validated {0}")
        @CsvSource({"Invalid", "InternalError"})
        void aPoolThatIsNotValidIsValidatedFalseWithTheVerdictsMessage(String reason) {
            PoolView view = PoolView.of(accepted(
                    spec().build(),
                    UID,
                    1,
                    new Validation(reason, "Instance type x is not " + "a valid instance type.")));

            assertThat(condition(view, Conditions.VALIDATED))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly("False", reason, "Instance type x is not a valid instance type.");
            assertThat(condition(view, Conditions.AT_TARGET).message()).endsWith(" The configuration is not valid.");
        }

        @Test
        void anInvalidUpdateOfAHealthyPoolSaysItWasNotAppliedAndCountsAgainstTheTargetInForce() {
            NodePoolAccepted valid = healthy().accepted();
            NodePoolAccepted invalid = accepted(
                    spec().targetNodes(9).build(),
                    UID,
                    2,
                    new Validation(Conditions.Validated.INVALID, "targetNodes 9 is above maxNodes 6."));
            PoolView view = healthy()
                    .withAccepted(new NodePoolAccepted(
                            invalid.org(), invalid.nodePool(), invalid.validation(), NOW, valid.keptInForce()));

            assertThat(condition(view, Conditions.VALIDATED))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "False",
                            Conditions.Validated.INVALID,
                            "targetNodes 9 is above maxNodes 6. Generation 2 "
                                    + "was not applied; generation 1 stays in force.");
            assertThat(condition(view, Conditions.AT_TARGET))
                    .extracting(Condition::status, Condition::reason)
                    .containsExactly("True", AtTarget.TARGET_MET);
            assertThat(StatusProjector.project(view, NOW).spec().targetNodes())
                    .as("the spec shown is the latest")
                    .isEqualTo(9);
        }

        @Test
        void queuedNodesComeFromTheCapacityDecision() {
            PoolView view = capacitySays(healthy(), Capacity.QUEUED_AWAITING_CAPACITY, 4);

            assertThat(status(view).queuedNodes()).isEqualTo(4);
        }
    }

    @Nested
    class AtTargetAndCounts {

        @Test
        void aPoolWaitingForNodesIsUnderTargetAndSaysWhy() {
            PoolView view = capacitySays(pool(spec().targetNodes(3)), Capacity.PARTIAL, 1)
                    .withNodes(nodes(node("n-1", Phase.Registered, "p"), node("n-2", Phase.Booting, null)));

            NodePoolStatus status = status(view);

            assertThat(status.condition(Conditions.AT_TARGET))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "False", AtTarget.UNDER_TARGET, "NodePool has 1 of 3 nodes: 1 in progress, 1 queued.");
            assertThat(status.currentNodes()).isEqualTo(1);
            assertThat(status.inProgress()).isEqualTo(1);
            assertThat(status.queuedNodes()).isEqualTo(1);
        }

        @Test
        void aPoolWhoseLastNodeStillBootsIsNotAtTargetYet() {
            PoolView view = pool(spec()).withNodes(nodes(node("n-1", Phase.Booting, null)));

            assertThat(condition(view, Conditions.AT_TARGET).reason()).isEqualTo(AtTarget.UNDER_TARGET);
        }

        @Test
        void aNodeRebootingInPlaceIsStillCurrentSoRoutineMaintenanceKeepsTheTargetMet() {
            Node registered = node("n-2", Phase.Registered, "p");
            Node rebooting = registered.withStatus(new Node.Status(
                    Phase.Booting, "p", 2, NOW_SECONDS, registered.status().conditions()));
            PoolView view = pool(spec().targetNodes(2)).withNodes(nodes(node("n-1", Phase.Registered, "p"), rebooting));

            NodePoolStatus status = status(view);

            assertThat(status.condition(Conditions.AT_TARGET))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "True",
                            AtTarget.TARGET_MET,
                            "NodePool has reached its target node count; 1 node(s) rebooting in place.");
            assertThat(status.currentNodes()).as("present in the cluster").isEqualTo(2);
            assertThat(status.inProgress()).isZero();
        }

        @Test
        void aBootRetriedAfterAFailureIsInProgressAndTheTargetNotMet() {
            PoolView view = pool(spec().targetNodes(1))
                    .withNodes(nodes(node("n-1", Phase.Booting, "p")
                            .withStatus(new Node.Status(Phase.Booting, "p", 2, null, List.of()))));

            NodePoolStatus status = status(view);

            assertThat(status.condition(Conditions.AT_TARGET).reason()).isEqualTo(AtTarget.UNDER_TARGET);
            assertThat(status.inProgress()).isEqualTo(1);
            assertThat(status.currentNodes()).isZero();
        }

        @Test
        void aPoolWithMoreNodesThanItsTargetIsOverTargetNamingTheScaleDownStrategy() {
            PoolView view = pool(spec().targetNodes(1).scaleDownStrategy(Lifecycle.PREFER_IDLE))
                    .withNodes(nodes(node("n-1", Phase.Registered, "p"), node("n-2", Phase.Registered, "p")));

            assertThat(condition(view, Conditions.AT_TARGET))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "False",
                            AtTarget.OVER_TARGET,
                            "NodePool has 2 nodes for a target of 1; extra nodes will "
                                    + "be removed using the PreferIdle scale-down strategy.");
        }

        @Test
        void anOverTargetMessageCountsTheNodesBeingRemoved() {
            PoolView view = pool(spec().targetNodes(1))
                    .withNodes(nodes(node("n-1", Phase.Registered, "p"), beingRemoved("n-2")));

            assertThat(condition(view, Conditions.AT_TARGET).message())
                    .endsWith("using the IdleOnly scale-down strategy (1 being removed).");
        }

        @Test
        void aScaleToZeroIsOverTargetUntilTheLastNodeLeavesAndThenTargetMet() {
            PoolView scaling = pool(spec().targetNodes(0)).withNodes(nodes(beingRemoved("n-1")));

            assertThat(condition(scaling, Conditions.AT_TARGET).reason()).isEqualTo(AtTarget.OVER_TARGET);
            assertThat(condition(scaling.withNodes(nodes()), Conditions.AT_TARGET)
                            .reason())
                    .isEqualTo(AtTarget.TARGET_MET);
        }

        @Test
        void aDisabledPoolIsUnderTargetWithTheReasonItWasDisabled() {
            PoolView view = pool(spec()).withReconciled(disabled(GEN_1, "3 successive boot failures."));

            assertThat(condition(view, Conditions.AT_TARGET))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "False", AtTarget.UNDER_TARGET, "NodePool is disabled: 3 successive boot failures.");
        }

        @Test
        void whatTheBudgetsHoldBackIsInTheStatusWhileThePoolLives() {
            DisruptionStatus held = new DisruptionStatus(
                    1,
                    List.of(new DisruptionStatus.Blocked(
                            "Unhealthy", "2 node(s) to be drained for a node alert wait for the disruption budget.")));
            PoolView view = healthy().withReconciled(withDisruption(reconciled(GEN_1, "profile-1"), held));

            assertThat(status(view).disruption()).isEqualTo(held);
            assertThat(Json.mapper()
                            .valueToTree(StatusProjector.project(view, NOW))
                            .at("/status/disruption/blocked/0/reason")
                            .asText())
                    .isEqualTo("Unhealthy");
            assertThat(status(view.withAccepted(deleting(view.accepted()))).disruption())
                    .as("a pool being deleted has no budgets left to keep")
                    .isNull();
        }

        @Test
        void aFailedNodeRemovalOrDeliveryIsAnInternalErrorSayingWhatIsRetried() {
            PoolView removing = healthy()
                    .withReconciled(failing(
                            GEN_1, false, "Removing node m-1 failed (attempt 1); " + "retrying in 5s.", null, null));
            PoolView undelivered = healthy()
                    .withReconciled(failing(
                            GEN_1, false, null, "Machine m-2 could not be " + "delivered to the NodePool.", null));

            assertThat(condition(removing, Conditions.AT_TARGET))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "False", AtTarget.INTERNAL_ERROR, "Removing node m-1 failed (attempt 1); retrying in 5s.");
            assertThat(condition(undelivered, Conditions.AT_TARGET).reason()).isEqualTo(AtTarget.INTERNAL_ERROR);
            assertThat(condition(healthy(), Conditions.AT_TARGET).reason()).isEqualTo(AtTarget.TARGET_MET);
        }

        @Test
        void registeredAndDrainingNodesAreCurrentBootingOnesInProgressAndFailedOnesNeither() {
            PoolView view = pool(spec().targetNodes(5))
                    .withNodes(nodes(
                            node("a", Phase.Registered, "p"),
                            node("b", Phase.Draining, "p"),
                            node("c", Phase.Booting, null),
                            node("d", Phase.Failed, null),
                            node("e", Phase.Removed, "p")));

            NodePoolStatus status = status(view);

            assertThat(status.currentNodes()).isEqualTo(2);
            assertThat(status.inProgress()).isEqualTo(1);
        }
    }

    @Nested
    class Deletion {

        private PoolView deletingWith(PoolView view) {
            return view.withAccepted(deleting(view.accepted()));
        }

        @Test
        void aDeletingPoolIsPendingDeleteAndItsNodesRemovalPending() {
            PoolView view = deletingWith(capacitySays(healthy(), Capacity.QUEUED_AWAITING_CAPACITY, 2));

            NodePoolStatus status = status(view);

            assertThat(status.conditions())
                    .extracting(Condition::type, Condition::status, Condition::reason)
                    .containsExactly(
                            tuple("Validated", "True", "Valid"),
                            tuple("Capacity", "False", "QueuedAwaitingCapacity"),
                            tuple("Quota", "True", "Under"),
                            tuple("AtTarget", "False", AtTarget.PENDING_DELETE),
                            tuple("NodesRemoved", "False", NodesRemoved.PENDING),
                            tuple("NodeReconfigurationRequired", "False", "AllNodesUpToDate"));
            assertThat(status.condition(Conditions.NODES_REMOVED).message())
                    .isEqualTo("1 node(s) are being removed from the NodePool.");
            assertThat(status.queuedNodes())
                    .as("a deleting pool queues for nothing")
                    .isZero();
        }

        @Test
        void aPoolThatIsNotDeletingHasNoNodesRemovedCondition() {
            assertThat(condition(healthy(), Conditions.NODES_REMOVED)).isNull();
        }

        @Test
        void nodesRemovedIsCompleteOnceTheReconcileSaysSoAndNoNodeIsLeft() {
            PoolView view =
                    deletingWith(healthy()).withReconciled(nodesRemoved(GEN_1)).withNodes(nodes());

            assertThat(condition(view, Conditions.NODES_REMOVED))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "True",
                            NodesRemoved.COMPLETE,
                            "All nodes have been removed; the NodePool will be deleted.");
        }

        @Test
        void aNodeRemovalThatFailsWhileDeletingIsAnInternalErrorUntilTheRetrySucceeds() {
            PoolView failing = deletingWith(healthy())
                    .withReconciled(failing(
                            GEN_1,
                            true,
                            "Removing node m-1 failed "
                                    + "(attempt 2): the fleet did not release the machine; retrying in 5s.",
                            null,
                            null));

            assertThat(condition(failing, Conditions.NODES_REMOVED))
                    .extracting(Condition::status, Condition::reason)
                    .containsExactly("False", NodesRemoved.INTERNAL_ERROR);
            assertThat(condition(failing, Conditions.NODES_REMOVED).message()).contains("attempt 2", "retrying");
            assertThat(condition(failing, Conditions.AT_TARGET).reason()).isEqualTo(AtTarget.PENDING_DELETE);
            assertThat(condition(
                                    failing.withReconciled(nodesRemoved(GEN_1)).withNodes(nodes()),
                                    Conditions.NODES_REMOVED)
                            .reason())
                    .isEqualTo(NodesRemoved.COMPLETE);
        }

        @Test
        void nodesRemovedStaysPendingWhileTheViewStillHoldsANode() {
            PoolView view = deletingWith(healthy()).withReconciled(nodesRemoved(GEN_1));

            assertThat(condition(view, Conditions.NODES_REMOVED).reason()).isEqualTo(NodesRemoved.PENDING);
        }

        @Test
        void goingFromPendingToCompleteMovesOnlyThatConditionsTransitionTime() {
            PoolView pending = published(deletingWith(healthy()), NOW_SECONDS);

            PoolView complete = pending.withReconciled(nodesRemoved(GEN_1)).withNodes(nodes());
            NodePoolStatus status = StatusProjector.project(complete, LATER).status();

            assertThat(status.condition(Conditions.NODES_REMOVED).lastTransitionTime())
                    .isEqualTo(LATER);
            assertThat(status.condition(Conditions.AT_TARGET).lastTransitionTime())
                    .isEqualTo(NOW_SECONDS);
        }
    }

    @Nested
    class TransitionTimes {

        @Test
        void transitionTimesHaveSecondPrecision() {
            assertThat(StatusProjector.project(healthy(), NOW_SECONDS.plusMillis(999))
                            .status()
                            .conditions())
                    .extracting(Condition::lastTransitionTime)
                    .containsOnly(NOW_SECONDS);
        }

        @Test
        void aConditionKeepsItsTransitionTimeWhileItsStatusStaysTheSame() {
            PoolView before = published(healthy(), NOW_SECONDS);

            NodePoolStatus after = StatusProjector.project(before, LATER).status();

            assertThat(after.conditions())
                    .extracting(Condition::lastTransitionTime)
                    .containsOnly(NOW_SECONDS);
        }

        @Test
        void aNewReasonWithTheSameStatusKeepsTheTransitionTime() {
            PoolView partial = published(capacitySays(healthy(), Capacity.PARTIAL, 1), NOW_SECONDS);

            Condition capacity = StatusProjector.project(capacitySays(partial, Capacity.NONE_AVAILABLE, 1), LATER)
                    .status()
                    .condition(Conditions.CAPACITY);

            assertThat(capacity.reason()).isEqualTo(Capacity.NONE_AVAILABLE);
            assertThat(capacity.lastTransitionTime()).isEqualTo(NOW_SECONDS);
        }

        @Test
        void aConditionWhoseStatusChangesMovesItsTransitionTime() {
            PoolView under = published(healthy().withNodes(nodes()), NOW_SECONDS);

            NodePoolStatus met = StatusProjector.project(
                            under.withNodes(healthy().nodes()), LATER)
                    .status();

            assertThat(met.condition(Conditions.AT_TARGET).lastTransitionTime()).isEqualTo(LATER);
            assertThat(met.condition(Conditions.VALIDATED).lastTransitionTime()).isEqualTo(NOW_SECONDS);
        }

        @Test
        void aConditionSeenForTheFirstTimeStartsNow() {
            PoolView unchecked = published(pool(spec()), NOW_SECONDS);

            NodePoolStatus status = StatusProjector.project(quotaSays(unchecked, Quota.UNDER), LATER)
                    .status();

            assertThat(status.condition(Conditions.QUOTA).lastTransitionTime()).isEqualTo(LATER);
        }
    }

    @Nested
    class Generations {

        @Test
        void observedGenerationIsUnsetBeforeTheFirstReconcile() {
            assertThat(status(pool(spec())).observedGeneration()).isNull();
        }

        @Test
        void observedGenerationIsTheGenerationTheProvisionerReconciled() {
            PoolView view =
                    PoolView.of(accepted(spec().build(), UID, 3, VALID)).withReconciled(reconciled(ref(UID, 2), "p"));

            assertThat(status(view).observedGeneration()).isEqualTo(2L);
        }
    }

    @Nested
    class Reconfiguration {

        @Test
        void nodesOnAnOlderProfileNeedAReconfigureReboot() {
            PoolView view = healthy()
                    .withReconciled(reconciled(GEN_1, "profile-2"))
                    .withNodes(nodes(
                            node("n-1", Phase.Registered, "profile-1"),
                            node("n-2", Phase.Registered, "profile-2"),
                            node("n-3", Phase.Booting, null)));

            NodePoolStatus status = status(view);

            assertThat(status.condition(Conditions.NODE_RECONFIGURATION_REQUIRED))
                    .extracting(Condition::status, Condition::reason, Condition::message)
                    .containsExactly(
                            "True", "StagedNodeConfig", "1 node(s) need a reconfigure reboot to run profile-2.");
            assertThat(status.nodeProfile()).isEqualTo("profile-2");
        }

        @Test
        void theMessageCountsEveryNodeOnAnotherProfileThanTheActiveOne() {
            PoolView view = healthy()
                    .withReconciled(reconciled(GEN_1, "profile-3"))
                    .withNodes(nodes(
                            node("n-1", Phase.Registered, "profile-1"),
                            node("n-2", Phase.Draining, "profile-2"),
                            node("n-3", Phase.Registered, "profile-3")));

            assertThat(condition(view, Conditions.NODE_RECONFIGURATION_REQUIRED).message())
                    .isEqualTo("2 node(s) need a reconfigure reboot to run profile-3.");
        }

        @Test
        void aConfigurationThatCannotBeStagedIsAnInternalErrorUntilTheRetrySucceeds() {
            PoolView view = healthy()
                    .withReconciled(failing(
                            GEN_1,
                            false,
                            null,
                            null,
                            "Staging node configuration "
                                    + "profile-1 onto node m-1 failed (attempt 1); retrying in 5s."));

            assertThat(condition(view, Conditions.NODE_RECONFIGURATION_REQUIRED))
                    .extracting(Condition::status, Condition::reason)
                    .containsExactly("False", Conditions.NodeReconfigurationRequired.INTERNAL_ERROR);
            assertThat(condition(view, Conditions.NODE_RECONFIGURATION_REQUIRED).message())
                    .contains("Staging", "m-1");
        }

        @Test
        void withoutAKnownProfileNoNodeIsOutdated() {
            PoolView view = pool(spec()).withNodes(nodes(node("n-1", Phase.Registered, "profile-1")));

            assertThat(condition(view, Conditions.NODE_RECONFIGURATION_REQUIRED).reason())
                    .isEqualTo("AllNodesUpToDate");
            assertThat(status(view).nodeProfile()).isNull();
        }
    }

    @Nested
    class NodeConfigurations {

        private static final Instant STAGED = NOW_SECONDS.minusSeconds(60);
        private static final Instant FIRST = CREATED;

        private static final PendingNodeConfiguration PENDING =
                new PendingNodeConfiguration(STAGED, "profile-3", List.of("ncore image: stable 2026.11.2"));
        private static final List<NodeConfigurationRevision> REVISIONS = List.of(
                new NodeConfigurationRevision(0, FIRST, "profile-1", true, List.of("ncore image: stable 2026.10.1")),
                new NodeConfigurationRevision(
                        1, FIRST.plusSeconds(3600), "profile-2", false, List.of("ncore image: stable 2026.11.1")));

        private static NodePoolReconciled configured(
                PendingNodeConfiguration pending, List<NodeConfigurationRevision> revisions) {
            return new NodePoolReconciled(
                    GEN_1, 1, 1, 0, 0, "profile-2", pending, revisions, false, false, false, null, NOW);
        }

        @Test
        void thePendingConfigurationAndTheRevisionsAreTheLatestReconcilesAsTheReferenceShowsThem() {
            NodePool pool = StatusProjector.project(healthy().withReconciled(configured(PENDING, REVISIONS)), NOW);

            assertThat(pool.status().pendingNodeConfiguration()).isEqualTo(PENDING);
            assertThat(pool.status().nodeConfigurationRevisions()).isEqualTo(REVISIONS);
            JsonNode status = Json.mapper().valueToTree(pool).get("status");
            assertThat(status.get("pendingNodeConfiguration")).isEqualTo(Fixtures.json("""
          {"createdAt": "2025-06-09T14:47:54Z", "nodeProfile": "profile-3",
           "summary": ["ncore image: stable 2026.11.2"]}"""));
            assertThat(status.get("nodeConfigurationRevisions")).isEqualTo(Fixtures.anyJson("""
          [{"activeNodes": 0, "createdAt": "2025-05-30T17:36:00Z", "nodeProfile": "profile-1", "disabled": true,
            "summary": ["ncore image: stable 2026.10.1"]},
           {"activeNodes": 1, "createdAt": "2025-05-30T18:36:00Z", "nodeProfile": "profile-2", "disabled": false,
            "summary": ["ncore image: stable 2026.11.1"]}]"""));
        }

        @Test
        void aPoolWithoutConfigurationHistoryShowsNeitherField() {
            PoolView never = pool(spec());
            PoolView none = healthy().withReconciled(configured(null, List.of()));

            for (PoolView view : List.of(never, none)) {
                JsonNode status = Json.mapper()
                        .valueToTree(StatusProjector.project(view, NOW))
                        .get("status");
                assertThat(status.has("pendingNodeConfiguration")).isFalse();
                assertThat(status.has("nodeConfigurationRevisions")).isFalse();
            }
        }

        @Test
        void aPromotedConfigurationIsNoLongerPending() {
            PoolView staged = published(healthy().withReconciled(configured(PENDING, REVISIONS)), NOW_SECONDS);

            NodePoolStatus promoted = StatusProjector.project(staged.withReconciled(configured(null, REVISIONS)), LATER)
                    .status();

            assertThat(promoted.pendingNodeConfiguration()).isNull();
            assertThat(promoted.nodeConfigurationRevisions()).isEqualTo(REVISIONS);
        }
    }
}
