package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.Node;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One node of a pool as the provisioner keeps it: the node as published, the grant it runs on, its durable deadlines
 * (boot end, drain end), what its workload last reported (grace period, disruptions its budget allows), why it is
 * leaving (null while it stays), where it is in a reconfigure reboot (null when none was asked for), a failed removal
 * or configuration staging waiting for its next attempt ({@code retry}), and its health: active alerts, recent raises
 * and the remediation under way ({@code health}, null while it never had an alert), and what a user set on it with
 * kubectl ({@code user}, null while nothing): {@code node} is the platform's node, {@link #published} the node as
 * everyone sees it.
 */
public record PoolNode(
        Node node,
        Grant grant,
        Instant bootDeadline,
        Instant drainDeadline,
        Integer graceSeconds,
        RemovalCause removal,
        Reconfigure reconfigure,
        Integer disruptionsAllowed,
        Retry retry,
        NodeHealth health,
        UserMarks user) {

    /** A reconfigure reboot: asked for (the node reboots once it is idle), then rebooting into the active config. */
    public enum Reconfigure {
        Requested,
        Rebooting
    }

    /** A step the simulated fleet failed {@code failures} times in a row, tried again at {@code at}. */
    public record Retry(int failures, Instant at, String error) {}

    /** A granted machine that starts its first boot. */
    public static PoolNode assigned(Node node, Grant grant, Instant bootDeadline) {
        return new PoolNode(node, grant, bootDeadline, null, null, null, null, null, null, null, null);
    }

    @JsonIgnore
    public String name() {
        return node.name();
    }

    @JsonIgnore
    public Node.Phase phase() {
        return node.phase();
    }

    @JsonIgnore
    public boolean leaving() {
        return removal != null;
    }

    @JsonIgnore
    public boolean active() {
        return node.isActive();
    }

    /** Whether the workload's disruption budget allows no eviction now, so a drain is blocked. */
    @JsonIgnore
    public boolean drainBlocked() {
        return disruptionsAllowed != null && disruptionsAllowed == 0;
    }

    @JsonIgnore
    public Remediation remediation() {
        return health == null ? null : health.remediation();
    }

    /** When this node's next timer fires: its boot, drain, retry or remediation step; null when none runs. */
    @JsonIgnore
    public Instant deadline() {
        Instant phaseDeadline =
                phase() == Node.Phase.Booting ? bootDeadline : phase() == Node.Phase.Draining ? drainDeadline : null;
        Remediation remediation = remediation();
        return Stream.of(
                        phaseDeadline,
                        retry == null ? null : retry.at(),
                        remediation == null ? null : remediation.deadline())
                .filter(Objects::nonNull)
                .min(Instant::compareTo)
                .orElse(null);
    }

    public PoolNode withNode(Node next) {
        return new PoolNode(
                next,
                grant,
                bootDeadline,
                drainDeadline,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                retry,
                health,
                user);
    }

    public PoolNode booting(Node next, Instant deadline) {
        return new PoolNode(
                next,
                grant,
                deadline,
                null,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                retry,
                health,
                user);
    }

    public PoolNode registered(Node next) {
        return new PoolNode(
                next,
                grant,
                null,
                drainDeadline,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                retry,
                health,
                user);
    }

    public PoolNode leaving(Node next, RemovalCause cause, Instant drainUntil) {
        return new PoolNode(
                next,
                grant,
                bootDeadline,
                drainUntil,
                graceSeconds,
                cause,
                null,
                disruptionsAllowed,
                retry,
                health,
                user);
    }

    /** Draining for a reason other than leaving (a reboot): cordoned until {@code drainUntil}. */
    public PoolNode draining(Node next, Instant drainUntil) {
        return new PoolNode(
                next,
                grant,
                bootDeadline,
                drainUntil,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                retry,
                health,
                user);
    }

    public PoolNode staying(Node next) {
        return new PoolNode(
                next,
                grant,
                bootDeadline,
                null,
                graceSeconds,
                null,
                reconfigure,
                disruptionsAllowed,
                null,
                health,
                user);
    }

    /** What the workload reported: its grace period and the disruptions its budget allows. */
    public PoolNode withWorkload(Integer seconds, Integer disruptions) {
        return new PoolNode(
                node,
                grant,
                bootDeadline,
                drainDeadline,
                seconds,
                removal,
                reconfigure,
                disruptions,
                retry,
                health,
                user);
    }

    public PoolNode withReconfigure(Reconfigure next) {
        return new PoolNode(
                node,
                grant,
                bootDeadline,
                drainDeadline,
                graceSeconds,
                removal,
                next,
                disruptionsAllowed,
                retry,
                health,
                user);
    }

    public PoolNode withRetry(Retry next) {
        return new PoolNode(
                node,
                grant,
                bootDeadline,
                drainDeadline,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                next,
                health,
                user);
    }

    public PoolNode withHealth(NodeHealth next) {
        return new PoolNode(
                node,
                grant,
                bootDeadline,
                drainDeadline,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                retry,
                next,
                user);
    }

    /**
     * The node as published: the platform's node with what the user set on top, and the workload's disruption budget
     * while it runs ({@link Node#ANNOTATION_DISRUPTIONS_ALLOWED}), and who cordoned it while a user did
     * ({@link Node#ANNOTATION_CORDONED_BY}).
     */
    @JsonIgnore
    public Node published() {
        Node shown = user == null ? node : user.onto(node);
        Map<String, String> added = new TreeMap<>();
        if (disruptionsAllowed != null && shown.isActive()) {
            added.put(Node.ANNOTATION_DISRUPTIONS_ALLOWED, disruptionsAllowed.toString());
        }
        if (user != null && user.cordoned()) {
            added.put(Node.ANNOTATION_CORDONED_BY, node.spec().unschedulable() ? "platform,user" : "user");
        }
        if (added.isEmpty()) {
            return shown;
        }
        var meta = shown.metadata();
        Map<String, String> annotations = new TreeMap<>(meta.annotations() == null ? Map.of() : meta.annotations());
        annotations.putAll(added);
        return shown.withMetadata(new Node.Meta(meta.name(), meta.creationTimestamp(), meta.labels(), annotations));
    }

    /** What the user set on the node with kubectl. */
    @JsonIgnore
    public UserMarks marks() {
        return user == null ? UserMarks.NONE : user;
    }

    public PoolNode withUser(UserMarks next) {
        return new PoolNode(
                node,
                grant,
                bootDeadline,
                drainDeadline,
                graceSeconds,
                removal,
                reconfigure,
                disruptionsAllowed,
                retry,
                health,
                next == null || next.none() ? null : next);
    }
}
