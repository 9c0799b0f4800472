package com.coreweave.nodepool.provisioner.domain.controllers.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.provisioner.domain.model.AlertAction;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The node-alert catalogue as shipped: every alert of reference 001, each with one action. */
class AlertCatalogueTest {

    /** The "Node alerts" table of reference 001, in its order. */
    static final List<String> REFERENCE_001 = List.of(
            "DCGMSRAMThresholdExceeded",
            "DPUContainerdThreadExhaustion",
            "DPUContainerdThreadExhaustionCPX",
            "DPULinkFlappingCPX",
            "DPUNetworkFrameErrs",
            "DPURouteCountMismatch",
            "DPURouteLoop",
            "DPURouteLoopCPX",
            "DPUUnexpectedPuntedRoutes",
            "DPUUnexpectedPuntedRoutesCPX",
            "ECCDoubleVolatileErrors",
            "GPUContainedECCError",
            "GPUECCUncorrectableErrorUncontained",
            "GPUFallenOffBus",
            "GPUFallenOffBusHGX",
            "GPUNVLinkSWDefinedError",
            "GPUPGraphicsEngineError",
            "GPUPRowRemapFailure",
            "GPUTimeoutError",
            "GPUUncorrectableDRAMError",
            "GPUUncorrectableSRAMError",
            "GPUVeryHot",
            "KubeNodeNotReady",
            "KubeNodeNotReadyHGX",
            "ManyUCESingleBankH100",
            "MetalDevRedfishError",
            "NVL72GPUHighFECCKS",
            "NVL72SwitchHighFECCKS",
            "NVLinkDomainFullyTriaged",
            "NVLinkDomainProductionNodeCountLow",
            "NodeBackendLinkFault",
            "NodeBackendMisconnected",
            "NodeCPUHZThrottleLong",
            "NodeGPUNVLinkDown",
            "NodeGPUXID149NVSwitch",
            "NodeGPUXID149s4aLinkIssueFordPintoRepeated",
            "NodeGPUXID149s4aLinkIssueLamboRepeated",
            "NodeGPUXID149s4aLinkIssueNeedsUpgradeRepeated",
            "NodeLoadAverageHigh",
            "NodeMemoryError",
            "NodeNetworkReceiveErrs",
            "NodePCIErrorH100GPU",
            "NodePCIErrorH100PLX",
            "NodeRepeatUCE",
            "NodeVerificationFailureNVFabric",
            "NodeVerificationMegatronDeadlock",
            "PendingStateExtendedTime",
            "PendingStateExtendedTimeLowGpuUtil",
            "UnknownNVMLErrorOnContainerStart");

    final AlertCatalogue catalogue = AlertCatalogue.standard();

    @Test
    void everyAlertOfReference001IsCataloguedOnceWithAConditionAndAnAction() {
        assertThat(catalogue.entries())
                .extracting(AlertCatalogue.Entry::alert)
                .containsExactlyElementsOf(REFERENCE_001);
        assertThat(catalogue.entries()).allSatisfy(entry -> {
            assertThat(entry.condition()).matches("[A-Z][A-Za-z]*Problem");
            assertThat(entry.reference()).isNotBlank();
        });
        Map<AlertAction, Long> byAction = catalogue.entries().stream()
                .collect(Collectors.groupingBy(AlertCatalogue.Entry::action, Collectors.counting()));
        assertThat(byAction).containsOnlyKeys(AlertAction.values());
    }

    @Test
    void whatTheReferenceSaysOfAnAlertIsItsAction() {
        assertThat(catalogue.find("GPUFallenOffBus"))
                .get()
                .extracting(AlertCatalogue.Entry::action)
                .isEqualTo(AlertAction.Replace);
        assertThat(catalogue.find("GPUTimeoutError"))
                .get()
                .extracting(AlertCatalogue.Entry::action)
                .isEqualTo(AlertAction.Reboot);
        assertThat(catalogue.find("NodeGPUNVLinkDown"))
                .get()
                .extracting(AlertCatalogue.Entry::action)
                .isEqualTo(AlertAction.Triage);
        assertThat(catalogue.find("GPUContainedECCError"))
                .get()
                .extracting(AlertCatalogue.Entry::action)
                .isEqualTo(AlertAction.None);
        assertThat(catalogue.find("DPURouteCountMismatch"))
                .as("a software component on the DPU will need to be restarted")
                .get()
                .extracting(AlertCatalogue.Entry::action)
                .isEqualTo(AlertAction.Restart);
    }

    @Test
    void fatalHardwareIsTakenOutOfServiceAtOnceAndOnlyTheThrottleInterruptsItsJob() {
        assertThat(catalogue.entries().stream().filter(AlertCatalogue.Entry::immediate))
                .extracting(AlertCatalogue.Entry::alert)
                .containsExactlyInAnyOrder(
                        "GPUFallenOffBus", "GPUFallenOffBusHGX", "GPUPRowRemapFailure", "NodeCPUHZThrottleLong");
        assertThat(catalogue.entries().stream().filter(AlertCatalogue.Entry::interrupts))
                .extracting(AlertCatalogue.Entry::alert)
                .containsExactly("NodeCPUHZThrottleLong");
    }

    @Test
    void anUnknownAlertIsRecordedAndNeverActedOn() {
        assertThat(catalogue.find("Xid999")).isEmpty();
        assertThat(catalogue.entry("Xid999"))
                .extracting(AlertCatalogue.Entry::condition, AlertCatalogue.Entry::action)
                .containsExactly(AlertCatalogue.UNKNOWN_CONDITION, AlertAction.None);
    }

    @Test
    void aCatalogueThatListsAnAlertTwiceIsRefused() {
        var entry = new AlertCatalogue.Entry("GPUVeryHot", "ThermalProblem", AlertAction.None, "hot");
        assertThatThrownBy(() -> new AlertCatalogue(List.of(entry, entry))).hasMessageContaining("twice");
    }
}
