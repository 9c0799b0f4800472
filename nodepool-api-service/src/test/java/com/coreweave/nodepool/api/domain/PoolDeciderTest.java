package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.A100;
import static com.coreweave.nodepool.api.domain.Fixtures.KEY;
import static com.coreweave.nodepool.api.domain.Fixtures.NOW;
import static com.coreweave.nodepool.api.domain.Fixtures.NOW_SECONDS;
import static com.coreweave.nodepool.api.domain.Fixtures.ORG;
import static com.coreweave.nodepool.api.domain.Fixtures.OTHER_UID;
import static com.coreweave.nodepool.api.domain.Fixtures.OTHER_ZONE;
import static com.coreweave.nodepool.api.domain.Fixtures.POOL;
import static com.coreweave.nodepool.api.domain.Fixtures.UID;
import static com.coreweave.nodepool.api.domain.Fixtures.VALID;
import static com.coreweave.nodepool.api.domain.Fixtures.ZONE;
import static com.coreweave.nodepool.api.domain.Fixtures.spec;
import static com.coreweave.nodepool.schema.events.NodePoolRequested.Operation.APPLY;
import static com.coreweave.nodepool.schema.events.NodePoolRequested.Operation.CREATE;
import static com.coreweave.nodepool.schema.events.NodePoolRequested.Operation.DELETE;
import static com.coreweave.nodepool.schema.events.NodePoolRequested.Operation.REPLACE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.api.domain.PlatformValidator.Finding;
import com.coreweave.nodepool.api.domain.PlatformValidator.Verdict;
import com.coreweave.nodepool.api.domain.PoolDecider.Decision;
import com.coreweave.nodepool.api.domain.PoolDecider.WriteContext;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RequestDecided.Outcome;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.ManagedFieldsEntry;
import com.coreweave.nodepool.schema.resource.NodeConfigurationUpdateStrategy;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PoolDeciderTest {

    /** A minute after creation, on a whole second. */
    private static final Instant LATER = NOW_SECONDS.plusSeconds(60);

    /** Specs the platform validation was asked to judge, in order. */
    private final List<NodePoolSpec> judged = new ArrayList<>();

    private Verdict verdict = new Verdict(VALID, List.of());

    private Verdict judge(NodePoolSpec spec) {
        judged.add(spec);
        return verdict;
    }

    private static NodePool manifest(NodePoolSpec spec) {
        return manifest(spec, null, null);
    }

    private static NodePool manifest(NodePoolSpec spec, Map<String, String> labels, Map<String, String> annotations) {
        return NodePool.of(new ObjectMeta(POOL, null, null, null, null, null, labels, annotations), spec, null);
    }

    /** A manifest carrying preconditions: {@code resourceVersion} and {@code uid} (either may be null). */
    private static NodePool precondition(NodePool manifest, String resourceVersion, String uid) {
        ObjectMeta m = manifest.metadata();
        return manifest.withMetadata(
                new ObjectMeta(m.name(), uid, null, resourceVersion, null, null, m.labels(), m.annotations()));
    }

    private Decision decide(
            Operation operation, NodePool manifest, NodePoolAccepted current, String resourceVersion, Instant now) {
        PoolRequest request = new PoolRequest(
                "req-" + resourceVersion,
                "platform/team-a",
                null,
                PoolKey.parse(KEY),
                operation,
                manifest,
                now,
                new byte[0]);
        return PoolDecider.decide(
                request, current, new WriteContext(now, resourceVersion, UID, ZONE, null), this::judge);
    }

    private Decision decide(Operation operation, NodePool manifest, NodePoolAccepted current, String resourceVersion) {
        return decide(operation, manifest, current, resourceVersion, LATER);
    }

    /** The pool after an APPLY of the minimal spec at resourceVersion 100. */
    private NodePoolAccepted created() {
        NodePoolAccepted created =
                decide(APPLY, manifest(spec().build()), null, "100", NOW).next();
        judged.clear();
        return created;
    }

    private static void assertRejected(Decision decision, int code, String reason) {
        assertThat(decision.answer().outcome()).isEqualTo(Outcome.REJECTED);
        assertThat(decision.answer().code()).isEqualTo(code);
        assertThat(decision.answer().error().getCode()).isEqualTo(code);
        assertThat(decision.answer().error().getReason()).isEqualTo(reason);
        assertThat(decision.answer().nodePool()).isNull();
        assertThat(decision.next()).as("nothing is written").isNull();
        assertThat(decision.events()).isEmpty();
    }

    @Nested
    class Create {

        @Test
        void anApplyOfANewPoolCreatesItWithUidGenerationOneAndTheResourceVersion() {
            Decision decision = decide(APPLY, manifest(spec().build()), null, "100", NOW);

            ObjectMeta meta = decision.next().nodePool().metadata();
            assertThat(meta.name()).isEqualTo(POOL);
            assertThat(meta.uid()).isEqualTo(UID);
            assertThat(meta.generation()).isEqualTo(1L);
            assertThat(meta.resourceVersion()).isEqualTo("100");
            assertThat(meta.deletionTimestamp()).isNull();
            assertThat(decision.next().org()).isEqualTo(ORG);
            assertThat(decision.next().acceptedAt()).isEqualTo(NOW);
        }

        @Test
        void theCreationTimestampHasSecondPrecision() {
            Decision decision = decide(APPLY, manifest(spec().build()), null, "100", NOW);

            assertThat(decision.next().nodePool().metadata().creationTimestamp())
                    .isEqualTo(NOW_SECONDS);
        }

        @Test
        void theCallerAnswers201CreatedWithTheStoredPool() {
            Decision decision = decide(APPLY, manifest(spec().build()), null, "100", NOW);

            assertThat(decision.answer().requestId()).isEqualTo("req-100");
            assertThat(decision.answer().outcome()).isEqualTo(Outcome.CREATED);
            assertThat(decision.answer().code()).isEqualTo(201);
            assertThat(decision.answer().nodePool()).isEqualTo(decision.next().nodePool());
            assertThat(decision.answer().error()).isNull();
            assertThat(decision.answer().decidedAt()).isEqualTo(NOW);
        }

        @Test
        void theReferenceDefaultsAreFilledIn() {
            NodePoolSpec stored = decide(
                            APPLY,
                            manifest(spec().image(new Image(null, null, null)).build()),
                            null,
                            "100")
                    .next()
                    .nodePool()
                    .spec();

            assertThat(stored.computeClass()).isEqualTo("default");
            assertThat(stored.autoscaling()).isFalse();
            assertThat(stored.lifecycle()).isEqualTo(new Lifecycle(Lifecycle.IDLE_ONLY, false));
            assertThat(stored.nodeConfigurationUpdateStrategy().type())
                    .isEqualTo(NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE);
            assertThat(stored.image().releaseTrain()).isEqualTo(Image.STABLE);
            assertThat(stored.region()).as("the default zone").isEqualTo(ZONE);
            assertThat(stored.instanceType()).isEqualTo(A100);
            assertThat(stored.targetNodes()).isEqualTo(1);
        }

        @Test
        void whatTheCallerWroteIsKeptOverTheDefaults() {
            NodePoolSpec given = spec().computeClass("spot")
                    .region(OTHER_ZONE)
                    .autoscaling(true)
                    .scaleDownStrategy(Lifecycle.PREFER_IDLE)
                    .updateStrategy(NodeConfigurationUpdateStrategy.ALWAYS)
                    .build();

            NodePoolSpec stored = decide(APPLY, manifest(given), null, "100")
                    .next()
                    .nodePool()
                    .spec();

            assertThat(stored.computeClass()).isEqualTo("spot");
            assertThat(stored.region()).isEqualTo(OTHER_ZONE);
            assertThat(stored.autoscaling()).isTrue();
            assertThat(stored.scaleDownStrategy()).isEqualTo(Lifecycle.PREFER_IDLE);
            assertThat(stored.nodeConfigurationUpdateStrategy().type())
                    .isEqualTo(NodeConfigurationUpdateStrategy.ALWAYS);
        }

        @Test
        void thePlatformValidationJudgesTheSpecWithItsDefaults() {
            Decision decision = decide(APPLY, manifest(spec().build()), null, "100");

            assertThat(judged).containsExactly(decision.next().nodePool().spec());
            assertThat(decision.next().validation()).isEqualTo(VALID);
        }

        @Test
        void labelsAndAnnotationsAreKeptButServerFieldsTheCallerWroteAreNot() {
            NodePool given = manifest(spec().build(), Map.of("team", "ml"), Map.of("note", "x"))
                    .withMetadata(new ObjectMeta(
                            POOL,
                            "my-uid",
                            7L,
                            null,
                            Instant.EPOCH,
                            Instant.EPOCH,
                            Map.of("team", "ml"),
                            Map.of("note", "x")));

            ObjectMeta meta =
                    decide(APPLY, given, null, "100", NOW).next().nodePool().metadata();

            assertThat(meta.labels()).isEqualTo(Map.of("team", "ml"));
            assertThat(meta.annotations()).isEqualTo(Map.of("note", "x"));
            assertThat(meta.uid()).isEqualTo(UID);
            assertThat(meta.generation()).isEqualTo(1L);
            assertThat(meta.creationTimestamp()).isEqualTo(NOW_SECONDS);
            assertThat(meta.deletionTimestamp()).isNull();
        }

        @Test
        void aCreatedPoolRecordsCWNodePoolCreated() {
            Decision decision = decide(APPLY, manifest(spec().targetNodes(2).build()), null, "100", NOW);

            assertThat(decision.events()).singleElement().satisfies(event -> {
                assertThat(event.reason()).isEqualTo("CWNodePoolCreated");
                assertThat(event.type()).isEqualTo(CwEvent.NORMAL);
                assertThat(event.message())
                        .isEqualTo("NodePool example-nodepool created: 2 x gd-8xa100-i128 in US-EAST-04A.");
                assertThat(event.involvedObject()).isEqualTo(ObjectReference.nodePool(POOL, UID));
                assertThat(event.org()).isEqualTo(ORG);
                assertThat(event.poolUid()).isEqualTo(UID);
                assertThat(event.id())
                        .as("deterministic for this incarnation")
                        .isEqualTo("nodepool-api-service/" + UID + "/CWNodePoolCreated");
                assertThat(event.at()).isEqualTo(NOW);
            });
        }

        @Test
        void anInvalidPoolIsStillCreatedWithItsVerdictAndTheVerdictsEvents() {
            String message = "Instance type gd-9 is not a valid instance type.";
            verdict = new Verdict(
                    new Validation(Conditions.Validated.INVALID, message),
                    List.of(new Finding(CwEvent.CWInvalidInstanceType, message)));

            Decision decision =
                    decide(APPLY, manifest(spec().instanceType("gd-9").build()), null, "100");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.CREATED);
            assertThat(decision.next().validation().reason()).isEqualTo(Conditions.Validated.INVALID);
            assertThat(decision.events())
                    .extracting(RecordedEvent::reason, RecordedEvent::type, RecordedEvent::message)
                    .containsExactly(
                            tuple(
                                    "CWNodePoolCreated",
                                    CwEvent.NORMAL,
                                    "NodePool example-nodepool created: 1 x gd-9 in US-EAST-04A."),
                            tuple("CWInvalidInstanceType", CwEvent.WARNING, message));
            assertThat(decision.events().get(1).id())
                    .isEqualTo("nodepool-api-service/" + UID + "/1/CWInvalidInstanceType");
        }

        @Test
        void aCreateOfAMissingPoolCreatesIt() {
            Decision decision = decide(CREATE, manifest(spec().build()), null, "100");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.CREATED);
            assertThat(decision.answer().code()).isEqualTo(201);
        }

        @Test
        void aSecondCreateIs409AlreadyExists() {
            Decision decision = decide(CREATE, manifest(spec().build()), created(), "101");

            assertRejected(decision, 409, "AlreadyExists");
            assertThat(decision.answer().error().getMessage())
                    .isEqualTo("nodepools.compute.coreweave.com \"example-nodepool\" already exists");
            assertThat(decision.answer().requestId()).isEqualTo("req-101");
        }

        @Test
        void aCreateWhileTheOldPoolIsBeingDeletedIs409AlreadyExists() {
            NodePoolAccepted deleting =
                    decide(DELETE, manifest(null), created(), "101").next();

            assertRejected(decide(CREATE, manifest(spec().build()), deleting, "102"), 409, "AlreadyExists");
        }

        @Test
        void anApplyWithAResourceVersionPreconditionDoesNotCreateAMissingPool() {
            NodePool stale = precondition(manifest(spec().build()), "100", null);

            Decision decision = decide(APPLY, stale, null, "101");

            assertRejected(decision, 409, "Conflict");
        }
    }

    @Nested
    class Update {

        @Test
        void aReplaceOfAMissingPoolIs404NotFound() {
            Decision decision = decide(REPLACE, manifest(spec().build()), null, "100");

            assertRejected(decision, 404, "NotFound");
            assertThat(decision.answer().error().getMessage())
                    .isEqualTo("nodepools.compute.coreweave.com \"example-nodepool\" not found");
        }

        @ParameterizedTest(name = "{0}")
        @EnumSource(
                value = Operation.class,
                names = {"APPLY", "REPLACE", "DELETE"})
        void aStaleResourceVersionIs409Conflict(Operation operation) {
            NodePoolAccepted current = created();

            Decision decision = decide(
                    operation, precondition(manifest(spec().targetNodes(3).build()), "99", null), current, "101");

            assertRejected(decision, 409, "Conflict");
            assertThat(decision.answer().error().getMessage())
                    .isEqualTo("Operation cannot be fulfilled on "
                            + "nodepools.compute.coreweave.com \"example-nodepool\": the object has been modified; please apply your "
                            + "changes to the latest version and try again");
        }

        @Test
        void theCurrentResourceVersionLetsTheWriteThrough() {
            Decision decision = decide(
                    REPLACE, precondition(manifest(spec().targetNodes(3).build()), "100", null), created(), "101");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UPDATED);
            assertThat(decision.next().nodePool().metadata().resourceVersion()).isEqualTo("101");
        }

        @ParameterizedTest(name = "{0}")
        @EnumSource(
                value = Operation.class,
                names = {"APPLY", "REPLACE", "DELETE"})
        void aUidPreconditionOfAnotherIncarnationIs409Conflict(Operation operation) {
            Decision decision =
                    decide(operation, precondition(manifest(spec().build()), null, OTHER_UID), created(), "101");

            assertRejected(decision, 409, "Conflict");
            assertThat(decision.answer().error().getMessage())
                    .contains(
                            "Precondition failed: UID in precondition: " + OTHER_UID + ", UID in object meta: " + UID);
        }

        @Test
        void aUidPreconditionOfThisIncarnationLetsTheWriteThrough() {
            Decision decision =
                    decide(APPLY, precondition(manifest(spec().targetNodes(2).build()), null, UID), created(), "101");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UPDATED);
        }

        @Test
        void changingTheInstanceTypeIs422WithTheFieldCause() {
            Decision decision = decide(
                    APPLY, manifest(spec().instanceType("gd-8xh100ib-i128").build()), created(), "101");

            assertRejected(decision, 422, "Invalid");
            assertThat(decision.answer().error().getDetails().getCauses())
                    .containsExactly(Statuses.cause(
                            Statuses.INVALID,
                            "Invalid value: \"gd-8xh100ib-i128\": field is immutable",
                            "spec.instanceType"));
        }

        @Test
        void changingTheRegionIs422WithTheFieldCause() {
            Decision decision =
                    decide(REPLACE, manifest(spec().region(OTHER_ZONE).build()), created(), "101");

            assertRejected(decision, 422, "Invalid");
            assertThat(decision.answer().error().getDetails().getCauses())
                    .extracting(StatusCause::getField)
                    .containsExactly("spec.region");
        }

        @Test
        void changingBothImmutableFieldsReportsBothCauses() {
            Decision decision = decide(
                    APPLY, manifest(spec().instanceType("x").region(OTHER_ZONE).build()), created(), "101");

            assertRejected(decision, 422, "Invalid");
            assertThat(decision.answer().error().getDetails().getCauses())
                    .extracting(StatusCause::getField)
                    .containsExactly("spec.instanceType", "spec.region");
            assertThat(decision.answer().error().getMessage())
                    .startsWith(
                            "NodePool.compute.coreweave.com " + "\"example-nodepool\" is invalid: spec.instanceType: ");
        }

        @Test
        void anIdenticalApplyChangesNothingAndWritesNothing() {
            NodePoolAccepted current = created();

            Decision decision = decide(APPLY, manifest(spec().build()), current, "101");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UNCHANGED);
            assertThat(decision.answer().code()).isEqualTo(200);
            assertThat(decision.answer().nodePool()).isEqualTo(current.nodePool());
            assertThat(decision.next()).isNull();
            assertThat(decision.events()).isEmpty();
            assertThat(judged).as("nothing to judge again").isEmpty();
        }

        @Test
        void spellingOutTheDefaultsChangesNothing() {
            NodePoolSpec explicit = spec().computeClass("default")
                    .region(ZONE)
                    .autoscaling(false)
                    .scaleDownStrategy(Lifecycle.IDLE_ONLY)
                    .updateStrategy(NodeConfigurationUpdateStrategy.ON_SPEC_UPDATE)
                    .build();

            assertThat(decide(APPLY, manifest(explicit), created(), "101")
                            .answer()
                            .outcome())
                    .isEqualTo(Outcome.UNCHANGED);
        }

        @Test
        void aManifestWithoutRegionKeepsTheStoredRegionWhateverTheDefaultZoneIsNow() {
            NodePoolAccepted current = created();
            PoolRequest request = new PoolRequest(
                    "req-2",
                    "platform/team-a",
                    null,
                    PoolKey.parse(KEY),
                    APPLY,
                    manifest(spec().build()),
                    LATER,
                    new byte[0]);

            Decision decision = PoolDecider.decide(
                    request,
                    current,
                    new WriteContext(LATER, "101", UID, OTHER_ZONE, null),
                    PoolDeciderTest.this::judge);

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UNCHANGED);
        }

        @Test
        void aMetadataOnlyChangeBumpsTheResourceVersionButNotTheGeneration() {
            NodePoolAccepted current = created();

            Decision decision = decide(APPLY, manifest(spec().build(), Map.of("team", "ml"), null), current, "101");

            ObjectMeta meta = decision.next().nodePool().metadata();
            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UPDATED);
            assertThat(decision.answer().code()).isEqualTo(200);
            assertThat(meta.resourceVersion()).isEqualTo("101");
            assertThat(meta.generation()).isEqualTo(1L);
            assertThat(meta.labels()).isEqualTo(Map.of("team", "ml"));
            assertThat(decision.next().nodePool().spec())
                    .isEqualTo(current.nodePool().spec());
            assertThat(judged).as("the spec is not judged again").isEmpty();
        }

        @Test
        void aMetadataOnlyChangeRecordsCWNodePoolMetadataAndKeepsTheVerdict() {
            Validation pending = new Validation(Conditions.Validated.INTERNAL_ERROR, "catalogue not loaded");
            NodePoolAccepted current = new NodePoolAccepted(ORG, created().nodePool(), pending, NOW);

            Decision decision = decide(APPLY, manifest(spec().build(), null, Map.of("note", "x")), current, "101");

            assertThat(decision.next().validation()).isEqualTo(pending);
            assertThat(decision.events()).singleElement().satisfies(event -> {
                assertThat(event.reason()).isEqualTo("CWNodePoolMetadata");
                assertThat(event.message()).isEqualTo("NodePool metadata updated.");
                assertThat(event.id()).isEqualTo("nodepool-api-service/" + UID + "/rv/101/CWNodePoolMetadata");
            });
        }

        @Test
        void removingEveryLabelIsAMetadataChange() {
            NodePoolAccepted labelled = decide(
                            APPLY, manifest(spec().build(), Map.of("team", "ml"), null), created(), "101")
                    .next();

            Decision decision = decide(APPLY, manifest(spec().build()), labelled, "102");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UPDATED);
            assertThat(decision.next().nodePool().metadata().labels()).isNull();
            assertThat(decision.next().nodePool().metadata().generation()).isEqualTo(1L);
        }

        @Test
        void anEmptyLabelMapIsTheSameAsNoLabels() {
            assertThat(decide(APPLY, manifest(spec().build(), Map.of(), Map.of()), created(), "101")
                            .answer()
                            .outcome())
                    .isEqualTo(Outcome.UNCHANGED);
        }

        @Test
        void aSpecChangeBumpsTheGenerationAndKeepsIdentity() {
            NodePoolAccepted current = created();

            Decision decision = decide(REPLACE, manifest(spec().targetNodes(3).build()), current, "101");

            ObjectMeta meta = decision.next().nodePool().metadata();
            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UPDATED);
            assertThat(decision.answer().code()).isEqualTo(200);
            assertThat(meta.generation()).isEqualTo(2L);
            assertThat(meta.resourceVersion()).isEqualTo("101");
            assertThat(meta.uid()).isEqualTo(UID);
            assertThat(meta.creationTimestamp())
                    .isEqualTo(current.nodePool().metadata().creationTimestamp());
            assertThat(decision.next().nodePool().spec().targetNodes()).isEqualTo(3);
            assertThat(decision.next().acceptedAt()).isEqualTo(LATER);
        }

        @Test
        void aSpecChangeIsJudgedAgainAndRecordsOnlyTheVerdictsEvents() {
            NodePoolAccepted current = created();
            verdict = new Verdict(
                    new Validation(Conditions.Validated.INVALID, "min > max"),
                    List.of(new Finding(CwEvent.CWInstanceTypeNotInZone, "not here")));

            Decision decision =
                    decide(APPLY, manifest(spec().minNodes(3).maxNodes(1).build()), current, "101");

            assertThat(judged)
                    .singleElement()
                    .extracting(NodePoolSpec::minNodes)
                    .isEqualTo(3);
            assertThat(decision.next().validation().reason()).isEqualTo(Conditions.Validated.INVALID);
            assertThat(decision.events())
                    .extracting(RecordedEvent::reason, RecordedEvent::id)
                    .containsExactly(
                            tuple(
                                    "CWInstanceTypeNotInZone",
                                    "nodepool-api-service/" + UID + "/2/CWInstanceTypeNotInZone"),
                            tuple(
                                    "CWNodePoolNodesRequestFailed",
                                    "nodepool-api-service/" + UID + "/2/not-applied/CWNodePoolNodesRequestFailed"));
        }

        @Test
        void anInvalidUpdateKeepsTheLastValidGenerationInForceAndSaysSo() {
            NodePoolAccepted current = created();
            verdict = new Verdict(
                    new Validation(Conditions.Validated.INVALID, "minNodes 5 is above targetNodes 2."), List.of());

            Decision decision = decide(
                    APPLY,
                    manifest(spec().targetNodes(2)
                            .autoscaling(true)
                            .minNodes(5)
                            .maxNodes(6)
                            .build()),
                    current,
                    "101");

            NodePoolAccepted next = decision.next();
            assertThat(next.generation()).isEqualTo(2L);
            assertThat(next.lastValid().generation()).isEqualTo(1L);
            assertThat(next.inForce().nodePool().spec())
                    .isEqualTo(current.nodePool().spec());
            assertThat(next.inForce().validation().valid()).isTrue();
            assertThat(next.inForce().generation())
                    .as("the metadata stays the latest")
                    .isEqualTo(2L);
            assertThat(decision.events()).singleElement().satisfies(e -> {
                assertThat(e.reason()).isEqualTo("CWNodePoolNodesRequestFailed");
                assertThat(e.type()).isEqualTo("Warning");
                assertThat(e.message())
                        .contains(
                                "Generation 2",
                                "was not applied",
                                "minNodes 5 is above targetNodes 2.",
                                "Generation 1 stays in force");
            });
        }

        @Test
        void aSecondInvalidUpdateKeepsTheSameValidGenerationAndAValidOneEndsIt() {
            NodePoolAccepted first = created();
            verdict = new Verdict(new Validation(Conditions.Validated.INVALID, "bad"), List.of());
            NodePoolAccepted second = decide(
                            APPLY, manifest(spec().targetNodes(7).build()), first, "101")
                    .next();
            NodePoolAccepted third = decide(
                            APPLY, manifest(spec().targetNodes(8).build()), second, "102")
                    .next();

            assertThat(third.generation()).isEqualTo(3L);
            assertThat(third.lastValid().generation()).isEqualTo(1L);

            verdict = new Verdict(VALID, List.of());
            Decision fixed = decide(APPLY, manifest(spec().targetNodes(3).build()), third, "103");

            assertThat(fixed.next().lastValid()).isNull();
            assertThat(fixed.next().inForce()).isSameAs(fixed.next());
            assertThat(fixed.events()).extracting(RecordedEvent::reason).doesNotContain("CWNodePoolNodesRequestFailed");
        }

        @Test
        void aLabelChangeOfAnInvalidPoolKeepsWhatIsInForce() {
            NodePoolAccepted first = created();
            verdict = new Verdict(new Validation(Conditions.Validated.INVALID, "bad"), List.of());
            NodePoolAccepted invalid = decide(
                            APPLY, manifest(spec().targetNodes(7).build()), first, "101")
                    .next();

            Decision labelled =
                    decide(APPLY, manifest(spec().targetNodes(7).build(), Map.of("a", "b"), null), invalid, "102");

            assertThat(labelled.next().lastValid()).isNotNull().isEqualTo(invalid.lastValid());
        }

        @Test
        void aSpecAndLabelChangeBumpsTheGenerationAndRecordsTheMetadataEvent() {
            Decision decision =
                    decide(APPLY, manifest(spec().targetNodes(2).build(), Map.of("a", "b"), null), created(), "101");

            assertThat(decision.next().nodePool().metadata().generation()).isEqualTo(2L);
            assertThat(decision.events()).extracting(RecordedEvent::reason).containsExactly("CWNodePoolMetadata");
        }
    }

    /** Issue 25: every write ends here, so the pool as stored is measured here, as JSON. */
    @Nested
    class StoredSize {

        /** Annotations within their 256 KiB of UTF-8 that JSON escapes make six times larger. */
        private Map<String, String> escaped() {
            return Map.of("note", "\u0001".repeat(50 * 1024));
        }

        @Test
        void aPoolLargerThanItsBoundAsJsonIsNotCreated() {
            Decision decision = decide(CREATE, manifest(spec().build(), null, escaped()), null, "100", NOW);

            assertRejected(decision, 422, "Invalid");
            StatusCause cause =
                    decision.answer().error().getDetails().getCauses().get(0);
            assertThat(cause.getReason()).isEqualTo(Statuses.TOO_LONG);
            assertThat(cause.getField()).isEqualTo("metadata");
            assertThat(cause.getMessage())
                    .startsWith("Too long: the NodePool as stored (metadata with managedFields, and "
                            + "spec) must have at most 262144 bytes of JSON, this one would have ");
            assertThat(judged).as("a refused pool is not judged").isEmpty();
        }

        @Test
        void anUpdateThatWouldMakeThePoolTooLargeIsRefusedAndChangesNothing() {
            Decision decision = decide(APPLY, manifest(spec().build(), null, escaped()), created(), "101");

            assertRejected(decision, 422, "Invalid");
        }

        @Test
        void theManagedFieldsTheWriteRecordsCount() {
            ObjectNode fields = Json.mapper().createObjectNode();
            for (int i = 0; i < 20_000; i++) {
                fields.putObject("f:example.com/label-" + i);
            }
            NodePool manifest = manifest(spec().build());
            manifest = manifest.withMetadata(manifest.metadata()
                    .withManagedFields(List.of(new ManagedFieldsEntry(
                            "kubectl", "Update", "compute.coreweave.com/v1alpha1", NOW_SECONDS, "FieldsV1", fields))));
            PoolRequest rest = new PoolRequest(
                    "req-1", PoolRequest.REST_SOURCE, null, PoolKey.parse(KEY), CREATE, manifest, NOW, null);

            Decision decision = PoolDecider.decide(
                    rest, null, new WriteContext(NOW, "100", UID, ZONE, null), PoolDeciderTest.this::judge);

            assertRejected(decision, 422, "Invalid");
            assertThat(decision.answer().error().getDetails().getCauses().get(0).getField())
                    .isEqualTo("metadata");
        }

        @Test
        void aPoolJustWithinItsBoundIsCreated() {
            Decision decision = decide(
                    CREATE, manifest(spec().build(), null, Map.of("note", "x".repeat(250 * 1024))), null, "100", NOW);

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.CREATED);
        }
    }

    /** Issue 27: a topic request's manager is the principal the broker authenticated, never a name it chose. */
    @Nested
    class TopicManagers {

        private Decision fromTopic(String tenantOrg, NodePool manifest, NodePoolAccepted current, String version) {
            PoolRequest request = new PoolRequest(
                    "req-" + version, "platform/ci", tenantOrg, PoolKey.parse(KEY), APPLY, manifest, LATER, null);
            return PoolDecider.decide(
                    request, current, new WriteContext(LATER, version, UID, ZONE, null), PoolDeciderTest.this::judge);
        }

        @Test
        void aPoolCreatedOnItsOrgsTopicIsManagedByTheOrgsPrincipal() {
            Decision decision = fromTopic("demo", manifest(spec().targetNodes(2).build()), null, "100");

            List<ManagedFieldsEntry> managers =
                    decision.next().nodePool().metadata().managedFields();
            assertThat(managers).singleElement().satisfies(entry -> {
                assertThat(entry.manager()).isEqualTo("tenant-demo");
                assertThat(entry.operation()).isEqualTo("Update");
                assertThat(entry.fieldsV1().at("/f:spec/f:targetNodes").isObject())
                        .isTrue();
            });
        }

        @Test
        void anUpdateOnItsOrgsTopicTakesOverOnlyTheFieldsItChanged() {
            NodePoolAccepted current = fromTopic(
                            "demo", manifest(spec().targetNodes(2).build()), null, "100")
                    .next();

            Decision decision = fromTopic("demo", manifest(spec().targetNodes(3).build()), current, "101");

            assertThat(decision.next().nodePool().spec().targetNodes()).isEqualTo(3);
            assertThat(decision.next().nodePool().metadata().managedFields())
                    .extracting(ManagedFieldsEntry::manager)
                    .containsExactly("tenant-demo");
        }

        @Test
        void aRecordOfTheSharedTopicChangesNoManager() {
            NodePoolAccepted current = fromTopic(
                            "demo", manifest(spec().targetNodes(2).build()), null, "100")
                    .next();

            Decision decision = fromTopic(null, manifest(spec().targetNodes(4).build()), current, "101");

            assertThat(decision.next().nodePool().metadata().managedFields())
                    .isEqualTo(current.nodePool().metadata().managedFields());
        }
    }

    @Nested
    class Delete {

        @Test
        void aDeleteOfAMissingPoolIs404NotFound() {
            assertRejected(decide(DELETE, manifest(null), null, "100"), 404, "NotFound");
        }

        @Test
        void aDeleteMarksThePoolWithADeletionTimestampAndANewResourceVersion() {
            NodePoolAccepted current = created();

            Decision decision = decide(DELETE, manifest(null), current, "101", LATER.plusMillis(456));

            ObjectMeta meta = decision.next().nodePool().metadata();
            assertThat(decision.answer().outcome()).isEqualTo(Outcome.DELETING);
            assertThat(decision.answer().code()).isEqualTo(200);
            assertThat(decision.answer().nodePool()).isEqualTo(decision.next().nodePool());
            assertThat(meta.deletionTimestamp()).as("second precision").isEqualTo(LATER);
            assertThat(meta.resourceVersion()).isEqualTo("101");
            assertThat(meta.generation()).isEqualTo(1L);
            assertThat(meta.uid()).isEqualTo(UID);
            assertThat(decision.next().deleting()).isTrue();
            assertThat(decision.next().nodePool().spec())
                    .isEqualTo(current.nodePool().spec());
            assertThat(decision.next().validation()).isEqualTo(current.validation());
            assertThat(decision.events()).isEmpty();
        }

        @Test
        void aSecondDeleteChangesNothing() {
            NodePoolAccepted deleting =
                    decide(DELETE, manifest(null), created(), "101").next();

            Decision decision = decide(DELETE, manifest(null), deleting, "102");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.UNCHANGED);
            assertThat(decision.answer().code()).isEqualTo(200);
            assertThat(decision.answer().nodePool()).isEqualTo(deleting.nodePool());
            assertThat(decision.next()).isNull();
        }

        @ParameterizedTest(name = "{0}")
        @EnumSource(
                value = Operation.class,
                names = {"APPLY", "REPLACE"})
        void anUpdateWhileThePoolIsBeingDeletedIs409Conflict(Operation operation) {
            NodePoolAccepted deleting =
                    decide(DELETE, manifest(null), created(), "101").next();

            Decision decision = decide(operation, manifest(spec().targetNodes(5).build()), deleting, "102");

            assertRejected(decision, 409, "Conflict");
            assertThat(decision.answer().error().getMessage()).endsWith("the object is being deleted");
        }

        @Test
        void aDeleteNamingTheCurrentVersionAndUidGoesThrough() {
            Decision decision = decide(DELETE, precondition(manifest(null), "100", UID), created(), "101");

            assertThat(decision.answer().outcome()).isEqualTo(Outcome.DELETING);
        }
    }
}
