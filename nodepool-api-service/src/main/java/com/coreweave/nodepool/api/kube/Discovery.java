package com.coreweave.nodepool.api.kube;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupList;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersions;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.api.model.version.Info;
import io.fabric8.kubernetes.api.model.version.InfoBuilder;
import java.util.List;

/**
 * The discovery documents kubectl reads before anything else ({@code /version}, {@code /api}, {@code /api/v1},
 * {@code /apis}, the group and its version): which resources exist, their kinds, scope and verbs. NodePools come from
 * the CustomResourceDefinition; the core resources are those kubectl's get and describe read.
 */
public final class Discovery {

    /** The Kubernetes API version whose surface this serves; kubectl picks its client version by it. */
    public static final String KUBERNETES_MAJOR = "1";

    public static final String KUBERNETES_MINOR = "32";

    private static final String GROUP_VERSION = NodePoolDefinition.GROUP + "/" + NodePoolDefinition.VERSION;

    private Discovery() {}

    public static Info version(String buildVersion) {
        return new InfoBuilder()
                .withMajor(KUBERNETES_MAJOR)
                .withMinor(KUBERNETES_MINOR)
                .withGitVersion("v" + KUBERNETES_MAJOR + "." + KUBERNETES_MINOR + ".0-nodepool." + buildVersion)
                .withGitTreeState("clean")
                .withGitCommit("")
                .withBuildDate("")
                .withGoVersion("")
                .withCompiler("java")
                .withPlatform("linux/amd64")
                .build();
    }

    public static APIVersions core(String serverAddress) {
        return new APIVersionsBuilder()
                .withVersions("v1")
                .addNewServerAddressByClientCIDR("0.0.0.0/0", serverAddress)
                .build();
    }

    public static APIResourceList coreV1() {
        return new APIResourceListBuilder()
                .withGroupVersion("v1")
                .withResources(
                        resource("events", "event", "Event", true, List.of("get", "list", "watch"), List.of("ev")),
                        resource(
                                "nodes",
                                "node",
                                "Node",
                                false,
                                List.of("delete", "get", "list", "patch", "watch"),
                                List.of("no")),
                        resource("pods", "pod", "Pod", true, List.of("get", "list"), List.of("po")),
                        // What drain looks for before it evicts: the eviction subresource, of policy/v1.
                        new APIResourceBuilder(
                                        resource("pods/eviction", "", "Eviction", true, List.of("create"), List.of()))
                                .withGroup("policy")
                                .withVersion("v1")
                                .build())
                .build();
    }

    public static APIGroupList groups() {
        return new APIGroupListBuilder().withGroups(group()).build();
    }

    public static APIGroup group() {
        GroupVersionForDiscovery version = new GroupVersionForDiscovery(GROUP_VERSION, NodePoolDefinition.VERSION);
        return new APIGroupBuilder()
                .withName(NodePoolDefinition.GROUP)
                .withVersions(version)
                .withPreferredVersion(version)
                .build();
    }

    public static APIResourceList nodePools() {
        var names = NodePoolDefinition.names();
        APIResource pools = new APIResourceBuilder(resource(
                        names.getPlural(),
                        names.getSingular(),
                        names.getKind(),
                        false,
                        List.of("create", "delete", "get", "list", "patch", "update", "watch"),
                        names.getShortNames()))
                .withCategories(names.getCategories())
                .build();
        APIResource scale = new APIResourceBuilder(resource(
                        names.getPlural() + "/scale", "", "Scale", false, List.of("get", "patch", "update"), List.of()))
                .withGroup("autoscaling")
                .withVersion("v1")
                .build();
        return new APIResourceListBuilder()
                .withGroupVersion(GROUP_VERSION)
                .withResources(pools, scale)
                .build();
    }

    private static APIResource resource(
            String name,
            String singular,
            String kind,
            boolean namespaced,
            List<String> verbs,
            List<String> shortNames) {
        return new APIResourceBuilder()
                .withName(name)
                .withSingularName(singular)
                .withKind(kind)
                .withNamespaced(namespaced)
                .withVerbs(verbs)
                .withShortNames(shortNames.isEmpty() ? null : shortNames)
                .build();
    }
}
