package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The capacity ledger as the provisioner sees it, for one pool: it grants free machines up to the demand with new grant
 * ids, never takes a grant back by itself, and frees a grant when a {@code NodeRemoved} names it (its machine goes to
 * maintenance when the release takes it out of service).
 */
public final class Ledger {

    private final List<String> machines = new ArrayList<>();
    private final Set<Grant> held = new LinkedHashSet<>();
    private final Set<String> maintenance = new LinkedHashSet<>();
    private long nextId = 1000;
    private int factsSeen;

    public Ledger(int fleetSize) {
        for (int i = 1; i <= fleetSize; i++) {
            machines.add(Fixtures.machine(i));
        }
    }

    public CapacityChecked grant(List<NodeFact> facts, int demand, long generation) {
        for (NodeFact fact : facts.subList(factsSeen, facts.size())) {
            if (fact instanceof NodeFact.NodeRemoved removed) {
                held.remove(removed.grant());
                if (removed.outOfService()) {
                    maintenance.add(removed.grant().machine());
                }
            }
        }
        factsSeen = facts.size();
        for (String machine : machines) {
            boolean taken = held.stream().anyMatch(g -> g.machine().equals(machine)) || maintenance.contains(machine);
            if (held.size() < demand && !taken) {
                held.add(new Grant(machine, nextId++));
            }
        }
        return Fixtures.capacity(generation, held.toArray(Grant[]::new));
    }

    public Set<Grant> held() {
        return held;
    }

    public Set<String> maintenance() {
        return maintenance;
    }
}
