package com.coreweave.nodepool.kit.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.audit.AuditEvent.ObjectRef;
import com.coreweave.nodepool.kit.audit.AuditEvent.ResponseStatus;
import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.resource.Statuses;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AuditEventsTest {

    static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/nodepools";
    static final Caller DEMO = new Caller("demo", false);
    static final Caller ADMIN = new Caller("platform-admin", true);
    static final Instant RECEIVED = Instant.parse("2026-05-01T12:00:00.123456789Z");
    static final Instant COMPLETED = Instant.parse("2026-05-01T12:00:00.200Z");

    static AuditEvent http(Caller caller, String method, String uri, int code) {
        return AuditEvents.of(new AuditEvents.HttpWrite(
                "id-1",
                caller,
                method,
                uri,
                code,
                code >= 400 ? Statuses.failure(code, "Reason" + code, "why " + code, null) : null,
                null,
                List.of("10.0.0.1"),
                "kubectl/v1.33",
                RECEIVED,
                COMPLETED,
                "nodepool-api-service"));
    }

    static ObjectRef ref(String method, String path) {
        return http(DEMO, method, path, 200).objectRef();
    }

    @Test
    void verbsAreKubernetesFromMethodAndPath() {
        assertThat(http(DEMO, "POST", POOLS, 201).verb()).isEqualTo("create");
        assertThat(http(DEMO, "PUT", POOLS + "/p1", 200).verb()).isEqualTo("update");
        assertThat(http(DEMO, "PATCH", POOLS + "/p1", 200).verb()).isEqualTo("patch");
        assertThat(http(DEMO, "DELETE", POOLS + "/p1", 200).verb()).isEqualTo("delete");
        assertThat(http(DEMO, "DELETE", POOLS, 200).verb()).isEqualTo("deletecollection");
        assertThat(http(DEMO, "PUT", POOLS + "/p1/scale", 200).verb()).isEqualTo("update");
        assertThat(http(DEMO, "POST", POOLS + "/p1/upgrade", 202).verb()).isEqualTo("create");
        assertThat(http(DEMO, "DELETE", "/api/v1/nodes/n1", 202).verb()).isEqualTo("delete");
    }

    @Test
    void onlyWritesAreAudited() {
        assertThat(List.of("POST", "PUT", "PATCH", "DELETE", "post")).allMatch(AuditEvents::audited);
        assertThat(List.of("GET", "HEAD", "OPTIONS", "get")).noneMatch(AuditEvents::audited);
    }

    @Test
    void poolPathsNameThePoolAndItsSubresource() {
        assertThat(ref("POST", POOLS))
                .isEqualTo(new ObjectRef("nodepools", null, null, "compute.coreweave.com", "v1alpha1", null));
        assertThat(ref("PUT", POOLS + "/p1"))
                .isEqualTo(new ObjectRef("nodepools", null, "p1", "compute.coreweave.com", "v1alpha1", null));
        assertThat(ref("PATCH", POOLS + "/p1/scale?fieldManager=kubectl"))
                .isEqualTo(new ObjectRef("nodepools", null, "p1", "compute.coreweave.com", "v1alpha1", "scale"));
        assertThat(ref("PUT", POOLS + "/p1/status").subresource()).isEqualTo("status");
        assertThat(ref("POST", POOLS + "/p1/rollback").subresource()).isEqualTo("rollback");
    }

    @Test
    void pathBelowASubresourceIsAnAnnotation() {
        AuditEvent deletion = http(DEMO, "DELETE", POOLS + "/p1/nodes/node-7", 202);
        assertThat(deletion.objectRef())
                .isEqualTo(new ObjectRef("nodepools", null, "p1", "compute.coreweave.com", "v1alpha1", "nodes"));
        assertThat(deletion.annotations()).containsEntry(AuditEvents.SUBRESOURCE_PATH, "node-7");
        assertThat(http(DEMO, "PUT", POOLS + "/p1/nodes/node-7/activity", 200).annotations())
                .containsEntry(AuditEvents.SUBRESOURCE_PATH, "node-7/activity");
    }

    @Test
    void corePathsHaveNoGroupAndNamespacesAreRead() {
        assertThat(ref("DELETE", "/api/v1/nodes/n1")).isEqualTo(new ObjectRef("nodes", null, "n1", null, "v1", null));
        assertThat(ref("POST", "/api/v1/namespaces/demo/events"))
                .isEqualTo(new ObjectRef("events", "demo", null, null, "v1", null));
        assertThat(ref("DELETE", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1"))
                .isEqualTo(new ObjectRef("leases", "kube-node-lease", "n1", "coordination.k8s.io", "v1", null));
    }

    @Test
    void operatorPaths() {
        // quota-service: the org is the namespace, zone and instance type the name.
        assertThat(ref("PUT", "/admin/quotas/demo/us-east-04a/gpu-h100"))
                .isEqualTo(new ObjectRef("quotas", "demo", "us-east-04a/gpu-h100", null, null, null));
        assertThat(http(ADMIN, "DELETE", "/admin/quotas/demo/us-east-04a/gpu-h100", 200)
                        .verb())
                .isEqualTo("delete");
        // capacity-service: a fleet is named by zone and instance type; machines, maintenance... are subresources.
        assertThat(ref("PUT", "/admin/fleet/us-east-04a/gpu-h100"))
                .isEqualTo(new ObjectRef("fleet", null, "us-east-04a/gpu-h100", null, null, null));
        AuditEvent machine = http(ADMIN, "DELETE", "/admin/fleet/us-east-04a/gpu-h100/machines/m-3", 200);
        assertThat(machine.objectRef())
                .isEqualTo(new ObjectRef("fleet", null, "us-east-04a/gpu-h100", null, null, "machines"));
        assertThat(machine.annotations()).containsEntry(AuditEvents.SUBRESOURCE_PATH, "m-3");
        assertThat(ref("POST", "/admin/fleet/us-east-04a/gpu-h100/machines").subresource())
                .isEqualTo("machines");
        assertThat(ref("POST", "/admin/fleet/us-east-04a/gpu-h100/reclaim-spot").subresource())
                .isEqualTo("reclaim-spot");
        // provisioner-service: collections written by POST.
        assertThat(ref("POST", "/admin/node-alerts"))
                .isEqualTo(new ObjectRef("node-alerts", null, null, null, null, null));
        assertThat(ref("POST", "/admin/node-releases"))
                .isEqualTo(new ObjectRef("node-releases", null, null, null, null, null));
        assertThat(http(ADMIN, "POST", "/admin/node-releases", 202).verb()).isEqualTo("create");
    }

    @Test
    void encodedSegmentsAreDecoded() {
        assertThat(ref("PUT", "/admin/quotas/my%20org/z/t").namespace()).isEqualTo("my org");
    }

    @Test
    void callerIsUserWithOrgAndRolesAsGroups() {
        AuditEvent byOrg = http(DEMO, "POST", POOLS, 201);
        assertThat(byOrg.user().username()).isEqualTo("demo");
        assertThat(byOrg.user().groups()).containsExactly("demo", AuditEvents.AUTHENTICATED);
        assertThat(byOrg.annotations()).containsEntry(AuditEvents.ORG, "demo");
        assertThat(http(ADMIN, "PUT", "/admin/quotas/demo/z/t", 200).user().groups())
                .containsExactly("platform-admin", AuditEvents.ADMINS, AuditEvents.AUTHENTICATED);
    }

    @Test
    void shouldNameTheAuthenticatedUserNotOnlyTheOrg() {
        Caller dana = new Caller("dana", "demo", Set.of());

        assertThat(AuditEvents.user(dana).username()).isEqualTo("dana");
        assertThat(AuditEvents.user(dana).groups()).contains("demo");
    }

    @Test
    void refusedBeforeAuthenticationIsAnonymous() {
        AuditEvent refused = http(null, "POST", POOLS, 401);
        assertThat(refused.user().username()).isEqualTo("system:anonymous");
        assertThat(refused.user().groups()).containsExactly("system:unauthenticated");
        assertThat(refused.annotations()).doesNotContainKey(AuditEvents.ORG);
        assertThat(refused.responseStatus()).isEqualTo(new ResponseStatus(401, "Failure", "Reason401", "why 401"));
    }

    @Test
    void responseStatusCarriesTheRefusalOnly() {
        assertThat(http(DEMO, "POST", POOLS, 201).responseStatus())
                .isEqualTo(new ResponseStatus(201, null, null, null));
        for (int code : new int[] {403, 409, 422, 429}) {
            assertThat(http(DEMO, "PUT", POOLS + "/p1", code).responseStatus())
                    .isEqualTo(new ResponseStatus(code, "Failure", "Reason" + code, "why " + code));
        }
    }

    @Test
    void requestIsDescribedAsKubernetesDoes() {
        AuditEvent event = http(DEMO, "PATCH", POOLS + "/p1?dryRun=All", 200);
        assertThat(event.kind()).isEqualTo("Event");
        assertThat(event.apiVersion()).isEqualTo("audit.k8s.io/v1");
        assertThat(event.level()).isEqualTo("Metadata");
        assertThat(event.stage()).isEqualTo("ResponseComplete");
        assertThat(event.auditID()).isEqualTo("id-1");
        assertThat(event.requestURI()).isEqualTo(POOLS + "/p1?dryRun=All");
        assertThat(event.sourceIPs()).containsExactly("10.0.0.1");
        assertThat(event.userAgent()).isEqualTo("kubectl/v1.33");
        assertThat(event.requestReceivedTimestamp()).isEqualTo("2026-05-01T12:00:00.123456Z");
        assertThat(event.stageTimestamp()).isEqualTo("2026-05-01T12:00:00.200000Z");
        assertThat(event.annotations()).containsEntry(AuditEvents.SERVICE, "nodepool-api-service");
    }

    @Test
    void generationIsAnAnnotation() {
        AuditEvent event = AuditEvents.of(new AuditEvents.HttpWrite(
                "id", DEMO, "PUT", POOLS + "/p1", 200, null, 4L, null, null, RECEIVED, COMPLETED, null));
        assertThat(event.annotations())
                .containsEntry(AuditEvents.GENERATION, "4")
                .doesNotContainKey(AuditEvents.SERVICE);
    }

    @Test
    void topicRequestIsUserByPrincipalWithItsSourceAndPoolByKey() {
        AuditEvent event = AuditEvents.of(new AuditEvents.TopicWrite(
                "audit-1",
                "ce-1",
                "tenant-demo",
                "ci/pipeline-7",
                "demo",
                Operation.APPLY,
                "p1",
                "kafka:nodepool-requested/3/1234",
                422,
                Statuses.failure(422, "Invalid", "spec.minNodes: must be at least 0", null),
                null,
                RECEIVED,
                COMPLETED,
                "nodepool-api-service"));
        assertThat(event.verb()).isEqualTo("patch");
        assertThat(event.user().username()).isEqualTo("tenant-demo");
        assertThat(event.user().groups()).containsExactly("demo");
        assertThat(event.objectRef())
                .isEqualTo(new ObjectRef("nodepools", null, "p1", "compute.coreweave.com", "v1alpha1", null));
        assertThat(event.requestURI()).isEqualTo("kafka:nodepool-requested/3/1234");
        assertThat(event.sourceIPs()).isNull();
        assertThat(event.responseStatus().code()).isEqualTo(422);
        assertThat(event.responseStatus().reason()).isEqualTo("Invalid");
        assertThat(event.annotations())
                .containsEntry(AuditEvents.ORG, "demo")
                .containsEntry(AuditEvents.REQUEST_ID, "ce-1")
                .containsEntry(AuditEvents.CLOUDEVENT_SOURCE, "ci/pipeline-7");
    }

    @Test
    void topicVerbsFollowTheirRestTwins() {
        assertThat(AuditEvents.verb(Operation.CREATE)).isEqualTo("create");
        assertThat(AuditEvents.verb(Operation.REPLACE)).isEqualTo("update");
        assertThat(AuditEvents.verb(Operation.APPLY)).isEqualTo("patch");
        assertThat(AuditEvents.verb(Operation.DELETE)).isEqualTo("delete");
    }

    @Test
    void aCreatesEventNamesTheObjectItMadeAsKubernetesDoes() {
        AuditEvent created = AuditFilter.named(http(DEMO, "POST", POOLS, 201), "p1");

        assertThat(created.objectRef().name()).isEqualTo("p1");
        assertThat(AuditFilter.named(http(DEMO, "PUT", POOLS + "/p2", 200), "p1")
                        .objectRef()
                        .name())
                .as("a path that names its object keeps it")
                .isEqualTo("p2");
    }
}
