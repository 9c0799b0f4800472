package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.resource.Node;
import java.util.Set;

/**
 * Whose a node's label, annotation or taint key is: the platform's (the machine's standard labels, the pool's label,
 * the health and preemption marks, anything under CoreWeave's or Kubernetes' own prefixes), the NodePool's (its
 * {@code spec.nodeLabels}, {@code nodeAnnotations}, {@code nodeTaints}), or the user's, which alone kubectl may change
 * on a node.
 */
public final class NodeKeys {

    /** Domains whose keys only the platform sets on a node; subdomains included. */
    private static final Set<String> PLATFORM_DOMAINS =
            Set.of("coreweave.com", "coreweave.cloud", "kubernetes.io", "k8s.io");

    /** Kubernetes' keys users set on nodes themselves ({@code node-role.kubernetes.io/gpu=}). */
    private static final Set<String> USER_PREFIXES = Set.of("node-role.kubernetes.io");

    /** Annotations Kubernetes' own clients write on any object (kubectl apply's last configuration). */
    private static final Set<String> CLIENT_ANNOTATION_PREFIXES = Set.of("kubectl.kubernetes.io");

    /** The platform's annotations a user sets on a node: their hold on its voluntary disruptions. */
    private static final Set<String> USER_ANNOTATIONS = Set.of(Node.ANNOTATION_DO_NOT_DISRUPT);

    private NodeKeys() {}

    /** Whether the platform owns a label or taint key: the prefix before the slash is one of its domains. */
    public static boolean platformLabel(String key) {
        String prefix = prefix(key);
        return prefix != null && !USER_PREFIXES.contains(prefix) && platformDomain(prefix);
    }

    /** Whether the platform owns an annotation key; kubectl's own annotations are the user's. */
    public static boolean platformAnnotation(String key) {
        String prefix = prefix(key);
        return prefix != null
                && !CLIENT_ANNOTATION_PREFIXES.contains(prefix)
                && !USER_ANNOTATIONS.contains(key)
                && platformDomain(prefix);
    }

    /** Why a user's value of an annotation the platform reads is refused; null when it is fine. */
    public static String annotationValueError(String key, String value) {
        if (Node.ANNOTATION_DO_NOT_DISRUPT.equals(key) && !"true".equals(value) && !"false".equals(value)) {
            return "must be \"true\" or \"false\"";
        }
        return null;
    }

    private static boolean platformDomain(String prefix) {
        return PLATFORM_DOMAINS.stream().anyMatch(d -> prefix.equals(d) || prefix.endsWith("." + d));
    }

    private static String prefix(String key) {
        int slash = key.indexOf('/');
        return slash < 0 ? null : key.substring(0, slash);
    }
}
