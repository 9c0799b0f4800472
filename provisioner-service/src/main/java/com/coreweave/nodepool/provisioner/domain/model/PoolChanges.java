package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a working pool changed so far: its nodes and released grants, each change with the fact that publishes it, and
 * the events and requests it made, in order. {@link WorkingPool} adds the pool's own bookkeeping; a node's fact carries
 * it as published, with what a user set on it ({@link PoolNode#published}).
 */
public abstract sealed class PoolChanges permits WorkingPool {

    /** The component named in the events this service records. */
    public static final String COMPONENT = "provisioner-service";

    final Instant now;
    final NodePoolAccepted accepted;
    final CapacityChecked capacity;
    final TreeMap<String, PoolNode> nodes;
    final TreeSet<Long> released;
    String deliveryError;
    DisruptionLog disruptions;
    final List<NodeFact> facts = new ArrayList<>();
    final List<RecordedEvent> events = new ArrayList<>();
    final List<CloudEvent<NodePoolRequested>> requests = new ArrayList<>();

    PoolChanges(PoolState state, Instant now) {
        this.now = now;
        this.accepted = state.accepted();
        this.capacity = state.capacity();
        this.nodes = new TreeMap<>(state.nodes());
        this.released = new TreeSet<>(state.releasedGrants());
        this.deliveryError = state.deliveryError();
        this.disruptions = state.disruptions();
    }

    public Instant now() {
        return now;
    }

    public NodePoolAccepted accepted() {
        return accepted;
    }

    public CapacityChecked capacity() {
        return capacity;
    }

    public PoolRef ref() {
        return PoolRef.of(accepted);
    }

    public NodePoolSpec spec() {
        return accepted.nodePool().spec();
    }

    public String uid() {
        return accepted.uid();
    }

    public boolean deleting() {
        return accepted.deleting();
    }

    /** Whether the platform validation accepted the pool: an invalid pool boots no nodes. */
    public boolean valid() {
        return accepted.validation() != null && accepted.validation().valid();
    }

    /**
     * The spec's target, but never more than the quota admitted (the capacity ledger's demand for this incarnation):
     * grants made for an older, larger demand may still arrive after quota lowered it, and must not become nodes the
     * org is not admitted to hold — the ledger never takes a grant back, so they would stay. 0 while deleting.
     */
    public int desired() {
        if (deleting()) {
            return 0;
        }
        int target = spec().target();
        boolean sameIncarnation = capacity != null && capacity.pool().uid().equals(uid());
        return sameIncarnation ? Math.min(target, capacity.requestedNodes()) : target;
    }

    /** The grants the ledger lists for this incarnation of the pool. */
    public List<Grant> grants() {
        if (capacity == null
                || capacity.grants() == null
                || !capacity.pool().uid().equals(uid())) {
            return List.of();
        }
        return capacity.grants();
    }

    public boolean released(long grantId) {
        return released.contains(grantId);
    }

    // ---- nodes

    public Collection<PoolNode> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    public PoolNode node(String name) {
        return nodes.get(name);
    }

    /** The nodes as they are now, to iterate while changing them. */
    public List<PoolNode> snapshot() {
        return List.copyOf(nodes.values());
    }

    public List<PoolNode> staying() {
        return nodes.values().stream().filter(n -> !n.leaving()).toList();
    }

    /** Keeps a change of the provisioner's own bookkeeping of a node, which the published node does not show. */
    public void keep(PoolNode node) {
        nodes.put(node.name(), node);
    }

    public void assigned(PoolNode node) {
        nodes.put(node.name(), node);
        facts.add(new NodeFact.NodeAssigned(ref(), node.published(), node.grant(), now));
    }

    public void registered(PoolNode node) {
        nodes.put(node.name(), node);
        facts.add(new NodeFact.NodeRegistered(ref(), node.published(), node.grant(), now));
    }

    public void bootFailed(PoolNode node, Node failed, String message) {
        facts.add(new NodeFact.NodeRegistrationFailed(ref(), node.marks().onto(failed), node.grant(), message, now));
    }

    public void updated(PoolNode node, String change) {
        nodes.put(node.name(), node);
        facts.add(new NodeFact.NodeUpdated(ref(), node.published(), node.grant(), change, now));
    }

    /**
     * The node leaves the pool and its grant is released: the ledger frees it, and it never becomes a node again. A
     * node remediation removed is out of service until its replacement is Ready ({@link DisruptionLog#replacing}).
     */
    public void remove(PoolNode node, RemovalCause cause, String message) {
        nodes.remove(node.name());
        if (cause.replaced()) {
            disruptions = disruptions.withReplacing(disruptions.replacing() + 1);
        }
        released.add(node.grant().grantId());
        facts.add(new NodeFact.NodeRemoved(
                ref(),
                node.marks().onto(NodeTemplate.removed(node.node(), cause, message, now)),
                node.grant(),
                cause.name(),
                now));
    }

    /** A grant the pool does not need is released before it became a node. */
    public void decline(Grant grant) {
        released.add(grant.grantId());
        facts.add(new NodeFact.NodeRemoved(
                ref(),
                NodeTemplate.declined(
                        ref(),
                        spec(),
                        grant.machine(),
                        RemovalCause.Declined,
                        "The pool did not need this machine.",
                        now),
                grant,
                RemovalCause.Declined.name(),
                now));
    }

    /** A grant the ledger made could not be delivered: released so that its machine goes to maintenance. */
    public void undeliverable(Grant grant, String error) {
        released.add(grant.grantId());
        facts.add(new NodeFact.NodeRemoved(
                ref(),
                NodeTemplate.declined(ref(), spec(), grant.machine(), RemovalCause.DeliverFailed, error, now),
                grant,
                RemovalCause.DeliverFailed.name(),
                now));
        deliveryError = error;
    }

    /** The last delivery failure, until a node was delivered after it. */
    public String deliveryError() {
        return deliveryError;
    }

    public void delivered() {
        deliveryError = null;
    }

    // ---- disruption budgets

    public DisruptionLog disruptions() {
        return disruptions;
    }

    public void changeDisruptions(DisruptionLog next) {
        disruptions = next;
    }

    /** The pool is reconciled again by {@code at} (a node's expiry, a budget's window). */
    public void wakeBy(Instant at) {
        if (disruptions.wakeAt() == null || at.isBefore(disruptions.wakeAt())) {
            disruptions = disruptions.wakingAt(at);
        }
    }

    // ---- events

    /** An event about the pool; {@code cause} must name the fact that caused it, so a replay gives the same id. */
    public void poolEvent(CwEvent event, String message, String cause) {
        events.add(RecordedEvent.ofPool(ref(), event, message, cause, COMPONENT, now));
    }

    public void nodeEvent(String node, CwEvent event, String message, String cause) {
        events.add(RecordedEvent.ofNode(ref(), node, event, message, cause, COMPONENT, now));
    }
}
