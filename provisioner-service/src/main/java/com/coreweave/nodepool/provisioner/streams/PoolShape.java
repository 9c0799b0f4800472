package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.kit.streams.store.SplitValues;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.Grant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How a pool's state is stored ({@link SplitValues}): a head without what grows with the pool, and a member for each
 * node, grant of the ledger and released grant id.
 *
 * <ul>
 *   <li>The head, in {@code provisioner-pools}, is the state without its nodes, grants and released grant ids.
 *   <li>Members, in {@code provisioner-pool-members}: {@code n/<node name>}, {@code g/<grant id>}, {@code r/<grant
 *       id>}.
 *   <li>A node with its pool's labels is a few KB, a grant or a released id tens of bytes, and the head does not grow
 *       with the pool, so no entry nears Kafka's 1 MiB at any pool size the API accepts.
 * </ul>
 */
final class PoolShape implements SplitValues.Shape<PoolState, PoolState, PoolMember> {

    static final String NODE = "n/";
    static final String GRANT = "g/";
    static final String RELEASED = "r/";

    @Override
    public PoolState head(PoolState state) {
        return state.withMembers(Map.of(), List.of(), List.of());
    }

    @Override
    public Map<String, PoolMember> members(PoolState state) {
        List<Grant> grants = state.capacity() == null || state.capacity().grants() == null
                ? List.of()
                : state.capacity().grants();
        Map<String, PoolMember> members = new HashMap<>(2
                * (state.nodes().size() + grants.size() + state.releasedGrants().size()));
        state.nodes().forEach((name, node) -> members.put(NODE + name, PoolMember.of(node)));
        grants.forEach(grant -> members.put(GRANT + grant.grantId(), PoolMember.of(grant)));
        state.releasedGrants().forEach(id -> members.put(RELEASED + id, PoolMember.released(id)));
        return members;
    }

    @Override
    public PoolState join(PoolState head, SortedMap<String, PoolMember> members) {
        Map<String, PoolNode> nodes = new TreeMap<>();
        List<Grant> grants = new ArrayList<>();
        List<Long> released = new ArrayList<>();
        for (PoolMember member : members.values()) {
            if (member.node() != null) {
                nodes.put(member.node().name(), member.node());
            } else if (member.grant() != null) {
                grants.add(member.grant());
            } else {
                released.add(member.releasedGrant());
            }
        }
        // In the order the ledger granted and lists them, and the pool keeps its released ids: that of their ids.
        grants.sort(Comparator.comparingLong(Grant::grantId));
        released.sort(Comparator.naturalOrder());
        return head.withMembers(nodes, grants, released);
    }
}
