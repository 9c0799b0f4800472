package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.provisioner.domain.PoolState.Scaling;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.PoolOffer;
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
 * The working copy of one pool while an input or a timer is applied: the state being changed, and every fact and event
 * that change produces, in order. The controllers change it only through its methods, so that a node's change never
 * goes without its fact; {@link #outcome()} freezes the result. A node's fact carries it as published, with what a user
 * set on it ({@link PoolNode#published}).
 */
final class WorkingPool {

    /** Node alert and deletion request ids remembered per pool. */
    static final int MAX_HANDLED = 64;

    private final Instant now;
    private final NodePoolAccepted accepted;
    private final CapacityChecked capacity;
    private final TreeMap<String, PoolNode> nodes;
    private final TreeSet<Long> released;
    private int bootFailureStreak;
    private String disabledMessage;
    private Scaling scaling;
    private long episode;
    private NodePoolReconciled lastReconciled;
    private NodeConfigState configs;
    private String autoscaledVersion;
    private Instant autoscaleAt;
    private final List<String> handledRequests;
    private String deliveryError;
    private DisruptionLog disruptions;
    private DemandState demand;
    private PoolOffer offer;
    private final List<NodeFact> facts = new ArrayList<>();
    private final List<RecordedEvent> events = new ArrayList<>();
    private final List<CloudEvent<NodePoolRequested>> requests = new ArrayList<>();

    WorkingPool(PoolState state, Instant now) {
        this.now = now;
        this.accepted = state.accepted();
        this.capacity = state.capacity();
        this.nodes = new TreeMap<>(state.nodes());
        this.released = new TreeSet<>(state.releasedGrants());
        this.bootFailureStreak = state.bootFailureStreak();
        this.disabledMessage = state.disabledMessage();
        this.scaling = state.scaling();
        this.episode = state.episode();
        this.lastReconciled = state.lastReconciled();
        this.configs = state.configs();
        this.autoscaledVersion = state.autoscaledVersion();
        this.autoscaleAt = state.autoscaleAt();
        this.handledRequests = new ArrayList<>(state.handledRequests());
        this.deliveryError = state.deliveryError();
        this.disruptions = state.disruptions();
        this.demand = state.demand();
    }

    Outcome outcome() {
        return new Outcome(
                new PoolState(
                        accepted,
                        capacity,
                        nodes,
                        List.copyOf(released),
                        bootFailureStreak,
                        disabledMessage,
                        scaling,
                        episode,
                        lastReconciled,
                        configs,
                        autoscaledVersion,
                        autoscaleAt,
                        handledRequests,
                        deliveryError,
                        disruptions,
                        demand),
                List.copyOf(facts),
                List.copyOf(events),
                List.copyOf(requests),
                offer);
    }

    Instant now() {
        return now;
    }

    NodePoolAccepted accepted() {
        return accepted;
    }

    CapacityChecked capacity() {
        return capacity;
    }

    PoolRef ref() {
        return PoolRef.of(accepted);
    }

    NodePoolSpec spec() {
        return accepted.nodePool().spec();
    }

    String uid() {
        return accepted.uid();
    }

    boolean deleting() {
        return accepted.deleting();
    }

    /** Whether the platform validation accepted the pool: an invalid pool boots no nodes. */
    boolean valid() {
        return accepted.validation() != null && accepted.validation().valid();
    }

    /** The grants the ledger lists for this incarnation of the pool. */
    List<Grant> grants() {
        if (capacity == null
                || capacity.grants() == null
                || !capacity.pool().uid().equals(uid())) {
            return List.of();
        }
        return capacity.grants();
    }

    boolean released(long grantId) {
        return released.contains(grantId);
    }

    // ---- nodes

    Collection<PoolNode> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    PoolNode node(String name) {
        return nodes.get(name);
    }

    /** The nodes as they are now, to iterate while changing them. */
    List<PoolNode> snapshot() {
        return List.copyOf(nodes.values());
    }

    List<PoolNode> staying() {
        return nodes.values().stream().filter(n -> !n.leaving()).toList();
    }

    /** Keeps a change of the provisioner's own bookkeeping of a node, which the published node does not show. */
    void keep(PoolNode node) {
        nodes.put(node.name(), node);
    }

    void assigned(PoolNode node) {
        nodes.put(node.name(), node);
        facts.add(new NodeFact.NodeAssigned(ref(), node.published(), node.grant(), now));
    }

    void registered(PoolNode node) {
        nodes.put(node.name(), node);
        facts.add(new NodeFact.NodeRegistered(ref(), node.published(), node.grant(), now));
    }

    void bootFailed(PoolNode node, Node failed, String message) {
        facts.add(new NodeFact.NodeRegistrationFailed(ref(), node.marks().onto(failed), node.grant(), message, now));
    }

    void updated(PoolNode node, String change) {
        nodes.put(node.name(), node);
        facts.add(new NodeFact.NodeUpdated(ref(), node.published(), node.grant(), change, now));
    }

    /**
     * The node leaves the pool and its grant is released: the ledger frees it, and it never becomes a node again. A
     * node remediation removed is out of service until its replacement is Ready ({@link DisruptionLog#replacing}).
     */
    void remove(PoolNode node, RemovalCause cause, String message) {
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
    void decline(Grant grant) {
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
    void undeliverable(Grant grant, String error) {
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
    String deliveryError() {
        return deliveryError;
    }

    void delivered() {
        deliveryError = null;
    }

    /**
     * Remembers the id of a node alert or deletion request (the latest {@link #MAX_HANDLED}); false when it was handled
     * before, so a redelivered record changes nothing.
     */
    boolean firstHandling(String id) {
        if (handledRequests.contains(id)) {
            return false;
        }
        handledRequests.add(id);
        if (handledRequests.size() > MAX_HANDLED) {
            handledRequests.remove(0);
        }
        return true;
    }

    // ---- boot failures and the disabled pool

    /** Counts one more failed boot in a row; returns the streak. */
    int countBootFailure() {
        return ++bootFailureStreak;
    }

    void resetBootFailures() {
        bootFailureStreak = 0;
    }

    boolean disabled() {
        return disabledMessage != null;
    }

    String disabledMessage() {
        return disabledMessage;
    }

    void disable(String message) {
        disabledMessage = message;
    }

    /** A new configuration is a new chance: the failure streak and a disabled pool start over. */
    void enable() {
        bootFailureStreak = 0;
        disabledMessage = null;
    }

    // ---- node configurations

    NodeConfigState configs() {
        return configs;
    }

    void changeConfigs(NodeConfigState next) {
        configs = next;
    }

    /** The active node configuration's id: what new and reconfigured nodes boot. */
    String activeProfile() {
        return configs.active().nodeProfile();
    }

    // ---- scaling episodes

    Scaling scaling() {
        return scaling;
    }

    /** Starts a scaling episode unless it is the one running; true when a new one started. */
    boolean startEpisode(Scaling next) {
        if (scaling == next) {
            return false;
        }
        scaling = next;
        episode++;
        return true;
    }

    void endEpisode() {
        scaling = null;
    }

    String episodeCause() {
        return uid() + "/episode-" + episode;
    }

    // ---- the autoscaler

    String autoscaledVersion() {
        return autoscaledVersion;
    }

    /** A change of the pool's spec the autoscaler asks the api-service for, as any client would, once per version. */
    void request(CloudEvent<NodePoolRequested> request, String version) {
        requests.add(request);
        autoscaledVersion = version;
    }

    /** When the autoscaler looks at the pool again; null when nothing it waits for is due. */
    void autoscaleAt(Instant next) {
        autoscaleAt = next;
    }

    // ---- demand

    DemandState demand() {
        return demand;
    }

    void changeDemand(DemandState next) {
        demand = next;
    }

    /** An offer to send the demand planner: the pool's offer changed. */
    void offer(PoolOffer next) {
        offer = next;
        demand = demand.withOffered(next);
    }

    // ---- disruption budgets

    DisruptionLog disruptions() {
        return disruptions;
    }

    void changeDisruptions(DisruptionLog next) {
        disruptions = next;
    }

    // ---- summary and events

    NodePoolReconciled lastReconciled() {
        return lastReconciled;
    }

    void summary(NodePoolReconciled reconciled) {
        facts.add(reconciled);
        lastReconciled = reconciled;
    }

    /** An event about the pool; {@code cause} must name the fact that caused it, so a replay gives the same id. */
    void poolEvent(CwEvent event, String message, String cause) {
        events.add(RecordedEvent.ofPool(ref(), event, message, cause, PoolReconciler.COMPONENT, now));
    }

    void nodeEvent(String node, CwEvent event, String message, String cause) {
        events.add(RecordedEvent.ofNode(ref(), node, event, message, cause, PoolReconciler.COMPONENT, now));
    }
}
