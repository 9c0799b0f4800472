package com.coreweave.nodepool.provisioner.domain.controllers.scaling;

import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.schema.resource.Lifecycle;
import com.coreweave.nodepool.schema.resource.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Chooses which nodes leave when a pool holds more than it should, by the pool's {@code scaleDownStrategy}: booting
 * nodes first (they hold no work), then idle nodes, both removed at once; {@code IdleOnly} stops there, while
 * {@code PreferIdle} (and a deletion, whatever the strategy) then drains active nodes. Newest nodes go first.
 */
public final class ScaleDownSelector {

    private ScaleDownSelector() {}

    /** Nodes to remove at once, and active nodes to cordon and drain first. */
    public record Selection(List<PoolNode> removeNow, List<PoolNode> drain) {}

    static final Comparator<PoolNode> NEWEST_FIRST = Comparator.comparing(
                    (PoolNode n) -> n.node().metadata().creationTimestamp(), Comparator.reverseOrder())
            .thenComparing(PoolNode::name, Comparator.reverseOrder());

    /**
     * @param staying the pool's nodes that are not leaving already
     * @param excess how many of them should go
     * @param strategy the pool's {@code lifecycle.scaleDownStrategy}
     * @param deleting whether the pool is being deleted (every node goes, active ones drained)
     */
    public static Selection select(Collection<PoolNode> staying, int excess, String strategy, boolean deleting) {
        List<PoolNode> removeNow = new ArrayList<>();
        List<PoolNode> drain = new ArrayList<>();
        if (excess <= 0) {
            return new Selection(removeNow, drain);
        }
        List<PoolNode> newestFirst = staying.stream().sorted(NEWEST_FIRST).toList();
        int left = excess;
        for (PoolNode node : newestFirst) {
            if (left > 0 && node.phase() == Node.Phase.Booting) {
                removeNow.add(node);
                left--;
            }
        }
        for (PoolNode node : newestFirst) {
            if (left > 0 && node.phase() == Node.Phase.Registered && !node.active()) {
                removeNow.add(node);
                left--;
            }
        }
        if (deleting || Lifecycle.PREFER_IDLE.equals(strategy)) {
            for (PoolNode node : newestFirst) {
                if (left > 0 && node.phase() == Node.Phase.Registered && node.active()) {
                    drain.add(node);
                    left--;
                }
            }
        }
        return new Selection(removeNow, drain);
    }
}
