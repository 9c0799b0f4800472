package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.provisioner.domain.model.PoolState.Scaling;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.PoolOffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The working copy of one pool while an input or a timer is applied: the state being changed, and every fact and event
 * that change produces, in order ({@link PoolChanges}). The controllers change it only through its methods, so that a
 * node's change never goes without its fact; {@link #outcome()} freezes the result.
 */
public final class WorkingPool extends PoolChanges {

    /** Node alert and deletion request ids remembered per pool. */
    static final int MAX_HANDLED = 64;

    private final NodeReleases releases;
    private int bootFailureStreak;
    private String disabledMessage;
    private Scaling scaling;
    private long episode;
    private NodePoolReconciled lastReconciled;
    private NodeConfigState configs;
    private String autoscaledVersion;
    private Instant autoscaleAt;
    private final List<String> handledRequests;
    private DemandState demand;
    private PoolOffer offer;

    /** The pool at {@code now}, reconciled with the upstream {@code releases} its trains follow. */
    public WorkingPool(PoolState state, Instant now, NodeReleases releases) {
        super(state, now);
        this.releases = releases;
        this.bootFailureStreak = state.bootFailureStreak();
        this.disabledMessage = state.disabledMessage();
        this.scaling = state.scaling();
        this.episode = state.episode();
        this.lastReconciled = state.lastReconciled();
        this.configs = state.configs();
        this.autoscaledVersion = state.autoscaledVersion();
        this.autoscaleAt = state.autoscaleAt();
        this.handledRequests = new ArrayList<>(state.handledRequests());
        this.demand = state.demand();
    }

    /** The pool at {@code now}, with the releases the fleet starts with. */
    public WorkingPool(PoolState state, Instant now) {
        this(state, now, NodeReleases.INITIAL);
    }

    public Outcome outcome() {
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

    /** The newest upstream release of each train, which a pool that follows one is configured from. */
    public NodeReleases releases() {
        return releases;
    }

    /**
     * Remembers the id of a node alert or deletion request (the latest {@link #MAX_HANDLED}); false when it was handled
     * before, so a redelivered record changes nothing.
     */
    public boolean firstHandling(String id) {
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
    public int countBootFailure() {
        return ++bootFailureStreak;
    }

    public void resetBootFailures() {
        bootFailureStreak = 0;
    }

    public boolean disabled() {
        return disabledMessage != null;
    }

    public String disabledMessage() {
        return disabledMessage;
    }

    public void disable(String message) {
        disabledMessage = message;
    }

    /** A new configuration is a new chance: the failure streak and a disabled pool start over. */
    public void enable() {
        bootFailureStreak = 0;
        disabledMessage = null;
    }

    // ---- node configurations

    public NodeConfigState configs() {
        return configs;
    }

    public void changeConfigs(NodeConfigState next) {
        configs = next;
    }

    /** The active node configuration's id: what new and reconfigured nodes boot. */
    public String activeProfile() {
        return configs.active().nodeProfile();
    }

    // ---- scaling episodes

    public Scaling scaling() {
        return scaling;
    }

    /** Starts a scaling episode unless it is the one running; true when a new one started. */
    public boolean startEpisode(Scaling next) {
        if (scaling == next) {
            return false;
        }
        scaling = next;
        episode++;
        return true;
    }

    public void endEpisode() {
        scaling = null;
    }

    public String episodeCause() {
        return uid() + "/episode-" + episode;
    }

    // ---- the autoscaler

    public String autoscaledVersion() {
        return autoscaledVersion;
    }

    /** A change of the pool's spec the autoscaler asks the api-service for, as any client would, once per version. */
    public void request(CloudEvent<NodePoolRequested> request, String version) {
        requests.add(request);
        autoscaledVersion = version;
    }

    /** When the autoscaler looks at the pool again; null when nothing it waits for is due. */
    public void autoscaleAt(Instant next) {
        autoscaleAt = next;
    }

    // ---- demand

    public DemandState demand() {
        return demand;
    }

    public void changeDemand(DemandState next) {
        demand = next;
    }

    /** An offer to send the demand planner: the pool's offer changed. */
    public void offer(PoolOffer next) {
        offer = next;
        demand = demand.withOffered(next);
    }

    // ---- summary and events

    public NodePoolReconciled lastReconciled() {
        return lastReconciled;
    }

    public void summary(NodePoolReconciled reconciled) {
        facts.add(reconciled);
        lastReconciled = reconciled;
    }
}
