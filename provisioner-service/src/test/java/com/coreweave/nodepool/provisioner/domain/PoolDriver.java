package com.coreweave.nodepool.provisioner.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.kafka.JsonSerde;
import com.coreweave.nodepool.provisioner.domain.controllers.health.AlertCatalogue;
import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.domain.model.Outcome;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.PoolState;
import com.coreweave.nodepool.schema.events.CapacityChecked;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.events.NodeActivityReported;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.events.NodeConfigurationRequested;
import com.coreweave.nodepool.schema.events.NodeDeletionRequested;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.NodeFact.NodePoolReconciled;
import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Plays one pool through the reconciler the way the processor does: inputs are handled, timers reconcile at their time,
 * and the state goes through its JSON mapping each step as it does through the store. Keeps what each step produced and
 * everything produced so far.
 */
public final class PoolDriver {

    private final PoolReconciler reconciler;
    private final Duration bootTime;
    private final JsonSerde<PoolState> serde = JsonSerde.of(PoolState.class);
    public Instant now = Fixtures.T0;
    private int alerts;
    public NodeReleases releases = NodeReleases.INITIAL;
    public PoolState state;
    public Outcome last;
    public final List<NodeFact> facts = new ArrayList<>();
    public final List<RecordedEvent> events = new ArrayList<>();
    public final List<CloudEvent<NodePoolRequested>> requests = new ArrayList<>();

    public PoolDriver(ProvisioningPolicy policy) {
        this.reconciler = new PoolReconciler(policy, AlertCatalogue.standard());
        this.bootTime = policy.bootTime();
    }

    public PoolDriver apply(PoolInput input) {
        return record(reconciler.handle(state, input, now, releases));
    }

    /** A pool of {@code target} nodes with that scale-down strategy, all granted, booted and registered. */
    public PoolDriver registered(String strategy, int target) {
        spec(Fixtures.accepted(Fixtures.withStrategy(Fixtures.spec(target), strategy), 1));
        grants(Fixtures.capacity(
                1, IntStream.rangeClosed(1, target).mapToObj(Fixtures::grant).toArray(Grant[]::new)));
        return tick(bootTime);
    }

    public PoolDriver spec(NodePoolAccepted accepted) {
        return apply(new PoolInput.SpecAccepted(accepted));
    }

    public PoolDriver grants(CapacityChecked checked) {
        return apply(new PoolInput.GrantsChecked(checked));
    }

    public PoolDriver report(NodeActivityReported report) {
        return apply(new PoolInput.ActivityReported(report));
    }

    /** An upstream release reaches the pool's task, which reconciles the pool with it. */
    public PoolDriver release(NodeReleasePublished release) {
        releases = releases.with(release);
        return record(reconciler.reconcile(state, now, releases));
    }

    public PoolDriver configuration(NodeConfigurationRequested request) {
        return apply(new PoolInput.ConfigurationRequested(request));
    }

    /** Monitoring raises an alert on a node, now. */
    public PoolDriver raise(int machine, String alert) {
        return apply(new PoolInput.AlertReported(Fixtures.alert(NodeAlert.RAISED, machine, alert, now, ++alerts)));
    }

    /** Monitoring says the alert on the node ended, now. */
    public PoolDriver resolve(int machine, String alert) {
        return apply(new PoolInput.AlertReported(Fixtures.alert(NodeAlert.RESOLVED, machine, alert, now, ++alerts)));
    }

    /** A user deletes one node. */
    public PoolDriver deleteNode(int machine) {
        return apply(new PoolInput.DeletionRequested(new NodeDeletionRequested(
                "delete-" + (++alerts), Fixtures.ORG, Fixtures.POOL, Fixtures.UID, Fixtures.machine(machine), now)));
    }

    /** A user changes one node through the core Node API (kubectl cordon, label, annotate, taint, drain). */
    public PoolDriver change(NodeChangeRequested request) {
        return apply(new PoolInput.ChangeRequested(request));
    }

    /** Time passes; the punctuator reconciles the pool. */
    public PoolDriver tick(Duration elapsed) {
        now = now.plus(elapsed);
        return record(reconciler.reconcile(state, now, releases));
    }

    private PoolDriver record(Outcome outcome) {
        last = outcome;
        state = outcome.state() == null
                ? null
                : serde.deserializer().deserialize("t", serde.serializer().serialize("t", outcome.state()));
        assertThat(state).as("the state survives its JSON mapping").isEqualTo(outcome.state());
        facts.addAll(outcome.facts());
        events.addAll(outcome.events());
        requests.addAll(outcome.requests());
        return this;
    }

    public List<Node> nodes(Node.Phase phase) {
        return state.nodes().values().stream()
                .map(PoolNode::node)
                .filter(n -> n.phase() == phase)
                .toList();
    }

    public PoolNode node(int machine) {
        return state.nodes().get(Fixtures.machine(machine));
    }

    public <T extends NodeFact> List<T> lastFacts(Class<T> type) {
        return last.facts().stream().filter(type::isInstance).map(type::cast).toList();
    }

    public <T extends NodeFact> List<T> allFacts(Class<T> type) {
        return facts.stream().filter(type::isInstance).map(type::cast).toList();
    }

    public List<CloudEvent<NodePoolRequested>> requestsSoFar() {
        return requests;
    }

    public List<String> lastReasons() {
        return last.events().stream().map(RecordedEvent::reason).toList();
    }

    public List<String> allReasons() {
        return events.stream().map(RecordedEvent::reason).toList();
    }

    /** The messages of every event of {@code reason} so far, in order. */
    public List<String> messages(String reason) {
        return events.stream()
                .filter(e -> e.reason().equals(reason))
                .map(RecordedEvent::message)
                .toList();
    }

    public NodePoolReconciled summary() {
        return state.lastReconciled();
    }
}
