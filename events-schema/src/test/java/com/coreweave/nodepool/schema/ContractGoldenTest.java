package com.coreweave.nodepool.schema;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CapacityDemanded;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.OrgPoolCount;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.QuotaDemanded;
import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.SpotReclaimRequested;
import com.coreweave.nodepool.schema.events.Validation;
import com.coreweave.nodepool.schema.events.Verdicts;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Conditions;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodeConfigurationRevision;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import com.coreweave.nodepool.schema.resource.ObjectMeta;
import com.coreweave.nodepool.schema.resource.ObjectReference;
import com.coreweave.nodepool.schema.resource.PendingNodeConfiguration;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.resource.Taint;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pins the JSON of every contract record: a change to any of them shows up as a golden-file diff. */
class ContractGoldenTest {

    static final Instant T0 = Instant.parse("2025-06-09T14:48:54Z");
    static final PoolRef POOL = new PoolRef(
            "demo",
            "example-nodepool",
            "9311678d-4064-45b8-8439-b943250e5852",
            1,
            "US-EAST-04A",
            "gd-8xa100-i128",
            "default");
    static final PoolRef SPOT_POOL = new PoolRef(
            "demo",
            "spot-nodepool",
            "5b7e2a41-0c39-4f7e-9a53-2e0d6c1f8b90",
            1,
            "US-EAST-04A",
            "gd-8xa100-i128",
            "spot");

    static NodePool manifest() {
        return NodePool.of(
                ObjectMeta.named("example-nodepool"),
                new NodePoolSpec(
                        null,
                        "gd-8xa100-i128",
                        2,
                        null,
                        null,
                        Map.of("team", "research"),
                        null,
                        List.of(new Taint("nvidia.com/gpu", "present", "NoSchedule")),
                        null,
                        null,
                        null,
                        null,
                        null,
                        "US-EAST-04A"),
                null);
    }

    static NodePool stored() {
        var meta = new ObjectMeta("example-nodepool", POOL.uid(), 1L, "857370", T0, null, null, null);
        return manifest().withMetadata(meta).withSpec(manifest().spec().withDefaults("US-EAST-04A"));
    }

    static Node node() {
        return Node.of(
                new Node.Meta(
                        "us-east-04a-gd-8xa100-i128-0001",
                        T0,
                        Map.of(
                                Node.LABEL_INSTANCE_TYPE,
                                "gd-8xa100-i128",
                                Node.LABEL_ZONE,
                                "US-EAST-04A",
                                Node.LABEL_NODE_POOL,
                                "example-nodepool",
                                "team",
                                "research"),
                        null),
                new Node.Spec(
                        "coreweave://US-EAST-04A/us-east-04a-gd-8xa100-i128-0001",
                        false,
                        List.of(new Taint("nvidia.com/gpu", "present", "NoSchedule"))),
                new Node.Status(
                        Node.Phase.Registered,
                        "np-3f2a9c",
                        1,
                        T0.plusSeconds(30),
                        List.of(
                                new Condition(
                                        Node.CONDITION_ACTIVE, "False", "Idle", "No workload reported.", T0, null),
                                new Condition(
                                        Node.CONDITION_REGISTERED,
                                        "True",
                                        "Registered",
                                        "Node joined the cluster.",
                                        T0.plusSeconds(30),
                                        null),
                                new Condition(Node.CONDITION_REMOVAL, "False", "NotPendingRemoval", "", T0, null))));
    }

    @Test
    void inboundCloudEventHasTheFormatOfDesign3() throws Exception {
        Golden.assertMatches(
                "nodepool-requested.json",
                CloudEvent.of(
                        "6f1c2f0e-8d7c-4d0e-9d55-3d2f1f0e8a11",
                        "platform-team/ci",
                        NodePoolRequested.TYPE,
                        "demo/example-nodepool",
                        T0,
                        new NodePoolRequested(NodePoolRequested.Operation.APPLY, manifest())),
                NodePoolRequested.ENVELOPE);
    }

    @Test
    void requestDecided() throws Exception {
        Golden.assertMatches(
                "nodepool-request-decided.json",
                new RequestDecided("6f1c2f0e", RequestDecided.Outcome.CREATED, 201, stored(), null, T0));
        Golden.assertMatches(
                "nodepool-request-rejected.json",
                new RequestDecided(
                        "6f1c2f0f",
                        RequestDecided.Outcome.REJECTED,
                        422,
                        null,
                        Statuses.failure(
                                422,
                                "Invalid",
                                "NodePool.compute.coreweave.com \"example-nodepool\" is invalid: spec.instanceType: field is immutable",
                                Statuses.details(
                                        "example-nodepool",
                                        "compute.coreweave.com",
                                        "NodePool",
                                        List.of(Statuses.cause(
                                                "FieldValueInvalid", "field is immutable", "spec.instanceType")))),
                        T0));
    }

    @Test
    void acceptedPool() throws Exception {
        Golden.assertMatches(
                "nodepool-accepted.json",
                new NodePoolAccepted(
                        "demo",
                        stored(),
                        new Validation(Conditions.Validated.VALID, "NodePool configuration is valid."),
                        T0));
    }

    @Test
    void quotaAndCapacityDecisions() throws Exception {
        Golden.assertMatches("quota-limit-set.json", new QuotaLimit("demo", "US-EAST-04A", "gd-8xa100-i128", 16, T0));
        Golden.assertMatches(
                "quota-checked.json",
                new QuotaChecked(
                        POOL,
                        Conditions.Quota.UNDER,
                        2,
                        2,
                        16,
                        6,
                        false,
                        "NodePool is within instance type quota.",
                        T0));
        Golden.assertMatches("quota-demanded.json", new QuotaDemanded(POOL, 2, true, false, false));
        Golden.assertMatches("quota-demanded-gone.json", QuotaDemanded.gone(POOL));
        Golden.assertMatches(
                "capacity-demanded.json",
                CapacityDemanded.of(new QuotaChecked(
                        POOL,
                        Conditions.Quota.UNDER,
                        2,
                        2,
                        16,
                        6,
                        false,
                        "NodePool is within instance type quota.",
                        T0)));
        Golden.assertMatches("capacity-demanded-gone.json", CapacityDemanded.gone("demo/example-nodepool", POOL.uid()));
        Golden.assertMatches(
                "capacity-checked.json",
                new CapacityChecked(
                        POOL,
                        Conditions.Capacity.PARTIAL,
                        2,
                        List.of(new Grant("us-east-04a-gd-8xa100-i128-0001", 41)),
                        1,
                        3,
                        5,
                        "1 node queued, position 3 of 5 for gd-8xa100-i128 in US-EAST-04A",
                        T0,
                        Conditions.Quota.UNDER,
                        "NodePool is within instance type quota."));
        Golden.assertMatches("org-pools-counted.json", new OrgPoolCount("demo", 2, 3, 12288));
        Golden.assertMatches(
                "instance-type-catalogued.json",
                new InstanceType(
                        "gd-8xa100-i128",
                        "8x NVIDIA A100 80GB SXM, Intel Xeon Ice Lake, 128 vCPU",
                        "A100",
                        8,
                        128,
                        2048,
                        false,
                        List.of("US-EAST-04A", "US-WEST-01A")));
        Golden.assertMatches(
                "fleet-change-requested.json",
                new FleetChangeRequested(
                        "c0ffee",
                        "US-EAST-04A",
                        "gd-8xa100-i128",
                        FleetChangeRequested.Operation.SET_SIZE,
                        24,
                        null,
                        T0));
        Golden.assertMatches(
                "spot-reclaim-requested.json",
                new SpotReclaimRequested(
                        "reclaim-7",
                        SPOT_POOL,
                        List.of("us-east-04a-gd-8xa100-i128-0001"),
                        "2 nodes of reserved demand wait for gd-8xa100-i128",
                        T0));
    }

    @Test
    void nodeFacts() throws Exception {
        Grant grant = new Grant("us-east-04a-gd-8xa100-i128-0001", 41);
        Golden.assertMatches("node-assigned.json", new NodeFact.NodeAssigned(POOL, node(), grant, T0));
        Golden.assertMatches("node-removed.json", new NodeFact.NodeRemoved(POOL, node(), grant, "ScaleDown", T0));
        Golden.assertMatches(
                "nodepool-reconciled.json",
                new NodeFact.NodePoolReconciled(
                        POOL,
                        2,
                        2,
                        0,
                        0,
                        "np-3f2a9c01",
                        new PendingNodeConfiguration(
                                T0.plusSeconds(60), "np-7be0d4e2", List.of("ncore image: stable 2026.11.2")),
                        List.of(new NodeConfigurationRevision(
                                2, T0, "np-3f2a9c01", false, List.of("ncore image: stable 2026.11.1"))),
                        false,
                        false,
                        false,
                        null,
                        T0));
        Golden.assertMatches(
                "nodepool-configuration-requested.json",
                new NodeConfigurationRequested(
                        "req-1",
                        "demo",
                        "example-nodepool",
                        "9311678d-4064-45b8-8439-b943250e5852",
                        NodeConfigurationRequested.Action.Rollback,
                        "np-3f2a9c01",
                        List.of(),
                        T0));
        Golden.assertMatches(
                "node-release-published.json",
                new NodeReleasePublished(
                        "stable", "2026.11.2", List.of("ncore image 2026.11.2", "Kubernetes v1.32.4"), T0));
        Golden.assertMatches(
                "node-activity-reported.json",
                new NodeActivityReported("demo", "example-nodepool", "us-east-04a-gd-8xa100-i128-0001", true, 90, T0));
        Golden.assertMatches(
                "node-activity-reported-pdb.json",
                new NodeActivityReported(
                        "demo", "example-nodepool", "us-east-04a-gd-8xa100-i128-0001", true, 90, T0, 0));
        Golden.assertMatches("node-removed-triaged.json", new NodeFact.NodeRemoved(POOL, node(), grant, "Triaged", T0));
        Golden.assertMatches(
                "nodepool-reconciled-errors.json",
                new NodeFact.NodePoolReconciled(
                        POOL,
                        2,
                        2,
                        0,
                        1,
                        "np-3f2a9c01",
                        null,
                        List.of(),
                        false,
                        false,
                        false,
                        null,
                        T0,
                        "Node us-east-04a-gd-8xa100-i128-0001 could not be removed (attempt 1); retrying in 5s.",
                        null,
                        null,
                        new Verdicts(
                                Conditions.Quota.UNDER,
                                "NodePool is within instance type quota.",
                                Conditions.Capacity.PARTIAL,
                                "1 node queued, position 3 of 5 for gd-8xa100-i128 in US-EAST-04A",
                                1),
                        null,
                        null));
    }

    @Test
    void nodeHealthInputs() throws Exception {
        Golden.assertMatches(
                "node-alert-raised.json",
                CloudEvent.of(
                        "alert-4f1e",
                        "monitoring/dcgm-exporter",
                        NodeAlert.RAISED,
                        "demo/example-nodepool",
                        T0,
                        new NodeAlert(
                                "us-east-04a-gd-8xa100-i128-0001",
                                "GPUFallenOffBus",
                                "Xid 79 on GPU 3 (PCI 0000:9b:00.0)")),
                NodeAlert.ENVELOPE);
        Golden.assertMatches(
                "node-deletion-requested.json",
                new NodeDeletionRequested(
                        "del-1", "demo", "example-nodepool", POOL.uid(), "us-east-04a-gd-8xa100-i128-0001", T0));
    }

    @Test
    void preemptionFacts() throws Exception {
        Golden.assertMatches(
                "preemption-pending.json",
                new PreemptionFact.PreemptionPending(
                        "reclaim-7",
                        SPOT_POOL,
                        "us-east-04a-gd-8xa100-i128-0001",
                        T0,
                        T0.plusSeconds(120),
                        T0.plusSeconds(420)));
        Golden.assertMatches(
                "node-preempted.json",
                new PreemptionFact.NodePreempted(
                        "reclaim-7", SPOT_POOL, "us-east-04a-gd-8xa100-i128-0001", T0, T0.plusSeconds(200), "Drained"));
    }

    @Test
    void eventsAndStatus() throws Exception {
        Golden.assertMatches(
                "nodepool-event-recorded.json",
                new RecordedEvents(List.of(new RecordedEvent(
                        "quota-checked/demo/example-nodepool/1",
                        "demo",
                        "example-nodepool",
                        POOL.uid(),
                        ObjectReference.nodePool("example-nodepool", POOL.uid()),
                        "CWOverQuota",
                        CwEvent.WARNING,
                        "NodePool targetNodes pushes you over quota for gd-8xa100-i128 in US-EAST-04A",
                        "quota-service",
                        T0))));
        Golden.assertMatches(
                "nodepool-events.json",
                new EventBuilder()
                        .withNewMetadata()
                        .withName("example-nodepool.1843f2c1a9d0e6b2")
                        .endMetadata()
                        .withNewInvolvedObject()
                        .withApiVersion(NodePool.API_VERSION)
                        .withKind(NodePool.KIND)
                        .withName("example-nodepool")
                        .withUid(POOL.uid())
                        .endInvolvedObject()
                        .withReason("CWNodePoolCreated")
                        .withMessage("NodePool example-nodepool created.")
                        .withType(CwEvent.NORMAL)
                        .withCount(1)
                        .withFirstTimestamp("2025-06-09T14:48:54Z")
                        .withLastTimestamp("2025-06-09T14:48:54Z")
                        .withNewSource()
                        .withComponent("nodepool-api-service")
                        .endSource()
                        .withReportingComponent("nodepool-api-service")
                        .build());
    }
}
