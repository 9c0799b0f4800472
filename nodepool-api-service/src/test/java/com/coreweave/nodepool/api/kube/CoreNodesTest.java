package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A pool's node as the core v1 Node that {@code kubectl get nodes} and {@code describe node} show. */
class CoreNodesTest {

    private static final Instant ASSIGNED = Instant.parse("2025-06-09T14:00:00.750Z");
    private static final Instant REGISTERED = Instant.parse("2025-06-09T14:05:30.250Z");
    private static final InstanceType A100 =
            new InstanceType("gd-8xa100-i128", "8x A100 80GB", "A100", 8, 128, 2048, false, List.of("US-EAST-04A"));

    @Test
    void shouldCarryTheNodesNameLabelsAnnotationsAndProvider() {
        // given
        Node node = node(Node.Phase.Registered, false, null, null);
        // when
        io.fabric8.kubernetes.api.model.Node core = CoreNodes.of(node, "acme", A100);
        // then
        assertThat(core.getApiVersion()).isEqualTo("v1");
        assertThat(core.getKind()).isEqualTo("Node");
        assertThat(core.getMetadata().getName()).isEqualTo("g1a2b3c");
        assertThat(core.getMetadata().getLabels())
                .containsEntry(Node.LABEL_NODE_POOL, "example-nodepool")
                .containsEntry(Node.LABEL_INSTANCE_TYPE, "gd-8xa100-i128");
        assertThat(core.getMetadata().getAnnotations()).containsEntry("note", "kept");
        assertThat(core.getSpec().getProviderID()).isEqualTo("coreweave://g1a2b3c");
        assertThat(core.getMetadata().getCreationTimestamp()).isEqualTo("2025-06-09T14:00:00Z");
    }

    @Test
    void shouldShowTheMachinesGpusCoresAndMemoryAsCapacity() {
        io.fabric8.kubernetes.api.model.Node core =
                CoreNodes.of(node(Node.Phase.Registered, false, null, null), "acme", A100);

        assertThat(core.getStatus().getCapacity())
                .containsEntry("cpu", new Quantity("128"))
                .containsEntry("memory", new Quantity("2048Gi"))
                .containsEntry("nvidia.com/gpu", new Quantity("8"));
        assertThat(core.getStatus().getAllocatable()).isEqualTo(core.getStatus().getCapacity());
    }

    @Test
    void shouldShowNoCapacityWhenTheInstanceTypeIsUnknown() {
        io.fabric8.kubernetes.api.model.Node core =
                CoreNodes.of(node(Node.Phase.Registered, false, null, null), "acme", null);

        assertThat(core.getStatus().getCapacity()).isNullOrEmpty();
        assertThat(core.getStatus().getAllocatable()).isNullOrEmpty();
    }

    @Test
    void shouldBeUnschedulableOnlyWhenCordoned() {
        io.fabric8.kubernetes.api.model.Node cordoned =
                CoreNodes.of(node(Node.Phase.Registered, true, null, null), "acme", A100);
        io.fabric8.kubernetes.api.model.Node open =
                CoreNodes.of(node(Node.Phase.Registered, false, null, null), "acme", A100);

        assertThat(cordoned.getSpec().getUnschedulable()).isTrue();
        assertThat(open.getSpec().getUnschedulable()).isNull();
    }

    @Test
    void shouldCarryTheNodesTaintsWithTheirEffects() {
        // given
        List<Taint> taints = List.of(
                new Taint(Node.TAINT_UNHEALTHY, "GPUFallenOff", "NoSchedule"),
                new Taint("dedicated", null, "NoExecute"));
        // when
        io.fabric8.kubernetes.api.model.Node core =
                CoreNodes.of(node(Node.Phase.Registered, false, taints, null), "acme", A100);
        // then
        assertThat(core.getSpec().getTaints())
                .extracting(t -> t.getKey() + "=" + t.getValue() + ":" + t.getEffect())
                .containsExactly(Node.TAINT_UNHEALTHY + "=GPUFallenOff:NoSchedule", "dedicated=null:NoExecute");
    }

    @Test
    void shouldLeaveOutTaintsWhenTheNodeHasNone() {
        assertThat(CoreNodes.of(node(Node.Phase.Registered, false, List.of(), null), "acme", A100)
                        .getSpec()
                        .getTaints())
                .isNullOrEmpty();
        assertThat(CoreNodes.of(node(Node.Phase.Registered, false, null, null), "acme", A100)
                        .getSpec()
                        .getTaints())
                .isNullOrEmpty();
    }

    @Test
    void shouldBeReadyWhileRegisteredOrDraining() {
        assertThat(CoreNodes.ready(node(Node.Phase.Registered, false, null, null)))
                .isTrue();
        assertThat(CoreNodes.ready(node(Node.Phase.Draining, false, null, null)))
                .isTrue();
        assertThat(CoreNodes.ready(node(Node.Phase.Booting, false, null, null))).isFalse();
        assertThat(CoreNodes.ready(node(Node.Phase.Failed, false, null, null))).isFalse();
        assertThat(CoreNodes.ready(node(Node.Phase.Removed, false, null, null))).isFalse();
    }

    @Test
    void shouldPutAReadyConditionSinceRegistrationFirst() {
        // when
        NodeCondition ready = CoreNodes.of(node(Node.Phase.Registered, false, null, null), "acme", A100)
                .getStatus()
                .getConditions()
                .getFirst();
        // then
        assertThat(ready.getType()).isEqualTo("Ready");
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getReason()).isEqualTo("KubeletReady");
        assertThat(ready.getLastTransitionTime()).isEqualTo("2025-06-09T14:05:30Z");
    }

    @Test
    void shouldSayABootingNodeIsNotReadyAndWhy() {
        // given a node that has not registered yet
        Node booting = node(Node.Phase.Booting, false, null, null);
        booting = booting.withStatus(new Node.Status(Node.Phase.Booting, "ubuntu-22.04", 1, null, null));
        // when
        NodeCondition ready =
                CoreNodes.of(booting, "acme", A100).getStatus().getConditions().getFirst();
        // then its Ready condition is False since the node was assigned
        assertThat(ready.getStatus()).isEqualTo("False");
        assertThat(ready.getReason()).isEqualTo("KubeletNotReady");
        assertThat(ready.getMessage()).isEqualTo("node is booting");
        assertThat(ready.getLastTransitionTime()).isEqualTo("2025-06-09T14:00:00Z");
    }

    @Test
    void shouldListTheNodesOwnConditionsAfterReady() {
        // given
        List<Condition> conditions = List.of(
                new Condition(Node.CONDITION_ACTIVE, Condition.TRUE, "Active", "serving", REGISTERED, null),
                new Condition(Node.CONDITION_REMOVAL, Condition.FALSE, "NotRemoving", null, ASSIGNED, null));
        // when
        List<NodeCondition> shown = CoreNodes.of(node(Node.Phase.Registered, false, null, conditions), "acme", A100)
                .getStatus()
                .getConditions();
        // then
        assertThat(shown)
                .extracting(NodeCondition::getType, NodeCondition::getStatus, NodeCondition::getReason)
                .containsExactly(
                        tuple("Ready", "True", "KubeletReady"),
                        tuple(Node.CONDITION_ACTIVE, "True", "Active"),
                        tuple(Node.CONDITION_REMOVAL, "False", "NotRemoving"));
        assertThat(shown.get(2).getLastTransitionTime()).isEqualTo("2025-06-09T14:00:00Z");
    }

    @Test
    void shouldSayARebootingNodeIsNotReadySinceItsRebootBegan() {
        // given a node registered at REGISTERED that began a reboot in place an hour later
        Instant reboot = REGISTERED.plusSeconds(3600);
        List<Condition> conditions = List.of(
                new Condition(Node.CONDITION_ACTIVE, Condition.FALSE, "Idle", null, REGISTERED, null),
                new Condition(
                        Node.CONDITION_READY, Condition.FALSE, "KubeletNotReady", "Node is rebooting.", reboot, null));
        Node rebooting = node(Node.Phase.Booting, false, null, conditions);
        // when
        List<NodeCondition> shown =
                CoreNodes.of(rebooting, "acme", A100).getStatus().getConditions();
        // then one Ready condition, first, with the provisioner's time and words
        assertThat(shown)
                .extracting(NodeCondition::getType, NodeCondition::getStatus, NodeCondition::getMessage)
                .containsExactly(
                        tuple("Ready", "False", "Node is rebooting."), tuple(Node.CONDITION_ACTIVE, "False", null));
        assertThat(shown.getFirst().getLastTransitionTime()).isEqualTo("2025-06-09T15:05:30Z");
    }

    @Test
    void shouldShowTheNodeProfileAsTheOsImage() {
        assertThat(CoreNodes.of(node(Node.Phase.Registered, false, null, null), "acme", A100)
                        .getStatus()
                        .getNodeInfo()
                        .getOsImage())
                .isEqualTo("ubuntu-22.04");
    }

    @Test
    void shouldGiveAMachineThatReturnsToThePoolAnotherUid() {
        // given the same machine, assigned twice
        Node first = node(Node.Phase.Registered, false, null, null);
        Node again = first.withMetadata(new Node.Meta(
                first.name(), ASSIGNED.plusSeconds(3600), first.metadata().labels(), null));
        // then
        assertThat(CoreNodes.uid("acme", first)).isEqualTo(CoreNodes.uid("acme", first));
        assertThat(CoreNodes.uid("acme", again)).isNotEqualTo(CoreNodes.uid("acme", first));
        assertThat(CoreNodes.uid("globex", first)).isNotEqualTo(CoreNodes.uid("acme", first));
        assertThat(CoreNodes.of(first, "acme", A100).getMetadata().getUid()).isEqualTo(CoreNodes.uid("acme", first));
    }

    private static Node node(Node.Phase phase, boolean cordoned, List<Taint> taints, List<Condition> conditions) {
        return Node.of(
                new Node.Meta(
                        "g1a2b3c",
                        ASSIGNED,
                        Map.of(Node.LABEL_NODE_POOL, "example-nodepool", Node.LABEL_INSTANCE_TYPE, "gd-8xa100-i128"),
                        Map.of("note", "kept")),
                new Node.Spec("coreweave://g1a2b3c", cordoned, taints),
                new Node.Status(phase, "ubuntu-22.04", 1, REGISTERED, conditions));
    }
}
