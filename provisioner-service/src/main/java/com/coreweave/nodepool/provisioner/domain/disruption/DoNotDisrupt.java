package com.coreweave.nodepool.provisioner.domain.disruption;

import com.coreweave.nodepool.provisioner.domain.model.NodeTemplate;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.schema.resource.Condition;
import com.coreweave.nodepool.schema.resource.Node;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A hold on a node's voluntary disruptions (Karpenter's {@code do-not-disrupt}): a user's (or the pool's
 * {@code nodeAnnotations}) {@link Node#ANNOTATION_DO_NOT_DISRUPT} of {@code "true"}, or a running workload that
 * reported {@code doNotDisrupt}. A held node is never picked for a scale-down or a reconfigure reboot; what the user
 * asked for outright (deleting the pool or the node) and what is involuntary (fatal hardware, spot reclaim, repair of a
 * node alert) still happen.
 */
public final class DoNotDisrupt {

    private DoNotDisrupt() {}

    /** What holds {@code node}, as a user reads it; null when nothing does. */
    public static String holder(PoolNode node) {
        if (annotated(node.node().metadata().annotations())
                || annotated(node.marks().annotations())) {
            return "annotation " + Node.ANNOTATION_DO_NOT_DISRUPT + "=true";
        }
        return workloadHolds(node.node()) ? "its workload" : null;
    }

    public static boolean held(PoolNode node) {
        return holder(node) != null;
    }

    /** The nodes and what holds each: {@code g1 (its workload), g2 (annotation ...)}. */
    static String describe(List<PoolNode> held) {
        return held.stream().map(n -> n.name() + " (" + holder(n) + ")").collect(Collectors.joining(", "));
    }

    private static boolean annotated(Map<String, String> annotations) {
        return annotations != null && "true".equals(annotations.get(Node.ANNOTATION_DO_NOT_DISRUPT));
    }

    /** Whether the running workload of {@code node} reported {@code doNotDisrupt}. */
    public static boolean workloadHolds(Node node) {
        if (node.status().conditions() == null) {
            return false;
        }
        for (Condition c : node.status().conditions()) {
            if (c.type().equals(Node.CONDITION_ACTIVE)) {
                return c.isTrue() && NodeTemplate.ACTIVE_HELD.equals(c.reason());
            }
        }
        return false;
    }
}
