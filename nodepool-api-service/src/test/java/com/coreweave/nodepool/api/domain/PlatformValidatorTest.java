package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.Fixtures.A100;
import static com.coreweave.nodepool.api.domain.Fixtures.GH200;
import static com.coreweave.nodepool.api.domain.Fixtures.OTHER_ZONE;
import static com.coreweave.nodepool.api.domain.Fixtures.catalogue;
import static com.coreweave.nodepool.api.domain.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.api.domain.PlatformValidator.Finding;
import com.coreweave.nodepool.api.domain.PlatformValidator.Verdict;
import com.coreweave.nodepool.schema.resource.Conditions.Validated;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Gpu;
import com.coreweave.nodepool.schema.resource.Image;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PlatformValidatorTest {

    private static Verdict judge(Fixtures.SpecBuilder spec) {
        return PlatformValidator.judge(spec.withDefaults(), catalogue(), true);
    }

    @Test
    void aKnownTypeOfferedInItsZoneIsValidWithTheReferenceMessage() {
        Verdict verdict = judge(spec());

        assertThat(verdict.validation().reason()).isEqualTo(Validated.VALID);
        assertThat(verdict.validation().message()).isEqualTo("NodePool configuration is valid.");
        assertThat(verdict.validation().valid()).isTrue();
        assertThat(verdict.events()).isEmpty();
    }

    @Nested
    class Catalogue {

        @Test
        void anUnknownInstanceTypeIsInvalidAndRaisesCWInvalidInstanceType() {
            Verdict verdict = judge(spec().instanceType("gd-9xz100"));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message())
                    .isEqualTo("Instance type gd-9xz100 is not a valid instance type.");
            assertThat(verdict.events())
                    .extracting(Finding::event, Finding::message)
                    .containsExactly(tuple(
                            CwEvent.CWInvalidInstanceType, verdict.validation().message()));
        }

        @Test
        void aTypeNotOfferedInThePoolsZoneIsInvalidAndRaisesCWInstanceTypeNotInZone() {
            Verdict verdict = judge(spec().region(OTHER_ZONE));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message())
                    .contains(A100, "not available in zone " + OTHER_ZONE, "US-EAST-04A", "US-CENTRAL-02A");
            assertThat(verdict.events()).extracting(Finding::event).containsExactly(CwEvent.CWInstanceTypeNotInZone);
        }

        @Test
        void aTypeIsJudgedInTheDefaultZoneWhenTheManifestNamesNone() {
            NodePoolSpec noRegion = spec().build().withDefaults(OTHER_ZONE);

            Verdict verdict = PlatformValidator.judge(noRegion, catalogue(), true);

            assertThat(verdict.events()).extracting(Finding::event).containsExactly(CwEvent.CWInstanceTypeNotInZone);
        }

        @Test
        void aCatalogueNotLoadedYetIsAnInternalErrorWithoutConsultingIt() {
            Verdict verdict = PlatformValidator.judge(
                    spec().withDefaults(),
                    type -> {
                        throw new AssertionError("the catalogue must not be read before it is loaded");
                    },
                    false);

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INTERNAL_ERROR);
            assertThat(verdict.validation().valid()).isFalse();
            assertThat(verdict.validation().message()).contains("catalogue is not available yet");
            assertThat(verdict.events()).isEmpty();
        }

        @Test
        void problemsFoundWithoutTheCatalogueAreStillInvalidWhileItIsNotLoaded() {
            Verdict verdict =
                    PlatformValidator.judge(spec().minNodes(3).maxNodes(1).withDefaults(), type -> null, false);

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
        }
    }

    @Nested
    class Spot {

        @ParameterizedTest(name = "computeClass {0}")
        @ValueSource(strings = {"spot", "Spot"})
        void aSpotPoolOfASuperchipTypeIsInvalid(String computeClass) {
            Verdict verdict = judge(spec().instanceType(GH200).computeClass(computeClass));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message()).contains("Spot", "Superchip", GH200);
            assertThat(verdict.events()).isEmpty();
        }

        @Test
        void aReservedPoolOfASuperchipTypeIsValid() {
            assertThat(judge(spec().instanceType(GH200)).validation().reason()).isEqualTo(Validated.VALID);
        }

        @ParameterizedTest(name = "computeClass {0}")
        @ValueSource(strings = {"spot", "Spot"})
        void aSpotPoolInAZoneWithoutSpotIsInvalidAndSaysWhere(String computeClass) {
            Verdict verdict = judge(spec().region("US-EAST-08A").computeClass(computeClass));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message())
                    .contains("General Access", "US-EAST-08A has no spot capacity", "US-EAST-04A");
        }

        @Test
        void aReservedPoolInAZoneWithoutSpotIsValid() {
            assertThat(judge(spec().region("US-EAST-08A")).validation().reason())
                    .isEqualTo(Validated.VALID);
        }

        @Test
        void aSpotPoolOfAnOrdinaryTypeIsValid() {
            assertThat(judge(spec().computeClass("spot")).validation().reason()).isEqualTo(Validated.VALID);
        }
    }

    @Nested
    class ImageAndGpu {

        @Test
        void anImageNameWithAKernelIsInvalid() {
            Verdict verdict = judge(spec().image(new Image("6.5.0", "ncore-image-v2.10.1", null)));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message())
                    .isEqualTo("spec.image: when name is set, kernel must be empty and releaseTrain must be stable.");
        }

        @Test
        void anImageNameOnTheLatestReleaseTrainIsInvalid() {
            Verdict verdict = judge(spec().image(new Image(null, "ncore-image-v2.10.1", Image.LATEST)));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message()).startsWith("spec.image:");
        }

        @Test
        void anImageNameWithAnEmptyKernelOnTheStableTrainIsValid() {
            assertThat(judge(spec().image(new Image("", "ncore-image-v2.10.1", Image.STABLE)))
                            .validation()
                            .reason())
                    .isEqualTo(Validated.VALID);
            assertThat(judge(spec().image(new Image(null, "ncore-image-v2.10.1", null)))
                            .validation()
                            .reason())
                    .as("releaseTrain defaults to stable")
                    .isEqualTo(Validated.VALID);
        }

        @Test
        void aKernelOnTheLatestTrainWithoutAnImageNameIsValid() {
            assertThat(judge(spec().image(new Image("6.5.0", null, Image.LATEST)))
                            .validation()
                            .reason())
                    .isEqualTo(Validated.VALID);
        }

        @Test
        void imageAndGpuTogetherAreValidWithAMessageThatGpuIsIgnored() {
            Verdict verdict = judge(spec().image(new Image(null, null, null)).gpu(new Gpu("535")));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.VALID);
            assertThat(verdict.validation().message())
                    .startsWith("NodePool configuration is valid.")
                    .contains("gpu is ignored", "image takes precedence");
            assertThat(verdict.events()).isEmpty();
        }

        @Test
        void gpuAloneIsValidWithThePlainMessage() {
            assertThat(judge(spec().gpu(new Gpu("535"))).validation().message())
                    .isEqualTo(PlatformValidator.VALID_MESSAGE);
        }
    }

    @Nested
    class Sizes {

        @Test
        void minNodesGreaterThanMaxNodesIsInvalid() {
            Verdict verdict = judge(spec().minNodes(4).maxNodes(2));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message())
                    .isEqualTo("spec.minNodes (4) must not be greater than spec.maxNodes (2).");
        }

        @Test
        void minNodesEqualToMaxNodesIsValid() {
            assertThat(judge(spec().targetNodes(2).minNodes(2).maxNodes(2))
                            .validation()
                            .reason())
                    .isEqualTo(Validated.VALID);
        }

        @Test
        void withAutoscalingATargetBelowMinNodesIsInvalid() {
            Verdict verdict =
                    judge(spec().autoscaling(true).targetNodes(1).minNodes(2).maxNodes(4));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message())
                    .isEqualTo("spec.targetNodes (1) must be within spec.minNodes (2) "
                            + "and spec.maxNodes (4) when autoscaling is enabled.");
        }

        @Test
        void withAutoscalingATargetAboveMaxNodesIsInvalidEvenWithoutMinNodes() {
            Verdict verdict = judge(spec().autoscaling(true).targetNodes(5).maxNodes(4));

            assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
            assertThat(verdict.validation().message()).contains("spec.minNodes (unset)", "spec.maxNodes (4)");
        }

        @Test
        void withAutoscalingATargetWithinMinAndMaxIsValid() {
            assertThat(judge(spec().autoscaling(true).targetNodes(2).minNodes(1).maxNodes(4))
                            .validation()
                            .reason())
                    .isEqualTo(Validated.VALID);
            assertThat(judge(spec().autoscaling(true).targetNodes(4).minNodes(4).maxNodes(4))
                            .validation()
                            .reason())
                    .isEqualTo(Validated.VALID);
        }

        @Test
        void withoutAutoscalingMinAndMaxDoNotBoundTheTarget() {
            assertThat(judge(spec().targetNodes(10).minNodes(1).maxNodes(4))
                            .validation()
                            .reason())
                    .isEqualTo(Validated.VALID);
        }
    }

    @Test
    void everyProblemIsReportedInOneMessage() {
        Verdict verdict = judge(
                spec().instanceType("unknown-type").minNodes(3).maxNodes(1).image(new Image("6.5", "img", null)));

        assertThat(verdict.validation().reason()).isEqualTo(Validated.INVALID);
        assertThat(verdict.validation().message())
                .contains(
                        "unknown-type is not a valid instance type",
                        "spec.image: when name is set",
                        "spec.minNodes (3) must not be greater than spec.maxNodes (1)");
        assertThat(verdict.events()).extracting(Finding::event).containsExactly(CwEvent.CWInvalidInstanceType);
    }
}
