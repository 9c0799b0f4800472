package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.Node;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * One node of a pool as the provisioner keeps it: the node as published, the grant it runs on, its durable deadlines
 * (boot end, drain end), what its workload last reported (grace period, disruptions its budget allows), why it is
 * leaving (null while it stays), where it is in a reconfigure reboot (null when none was asked for), a failed removal
 * or configuration staging waiting for its next attempt ({@code retry}), and its health: active alerts, recent raises
 * and the remediation under way ({@code health}, null while it never had an alert).
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
        NodeHealth health) {

    /** A reconfigure reboot: asked for (the node reboots once it is idle), then rebooting into the active config. */
    public enum Reconfigure {
        Requested,
        Rebooting
    }

    /** A step the simulated fleet failed {@code failures} times in a row, tried again at {@code at}. */
    public record Retry(int failures, Instant at, String error) {}

    /** A granted machine that starts its first boot. */
    public static PoolNode assigned(Node node, Grant grant, Instant bootDeadline) {
        return new PoolNode(node, grant, bootDeadline, null, null, null, null, null, null, null);
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
                health);
    }

    public PoolNode booting(Node next, Instant deadline) {
        return new PoolNode(
                next, grant, deadline, null, graceSeconds, removal, reconfigure, disruptionsAllowed, retry, health);
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
                health);
    }

    public PoolNode leaving(Node next, RemovalCause cause, Instant drainUntil) {
        return new PoolNode(
                next, grant, bootDeadline, drainUntil, graceSeconds, cause, null, disruptionsAllowed, retry, health);
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
                health);
    }

    public PoolNode staying(Node next) {
        return new PoolNode(
                next, grant, bootDeadline, null, graceSeconds, null, reconfigure, disruptionsAllowed, null, health);
    }

    /** What the workload reported: its grace period and the disruptions its budget allows. */
    public PoolNode withWorkload(Integer seconds, Integer disruptions) {
        return new PoolNode(
                node, grant, bootDeadline, drainDeadline, seconds, removal, reconfigure, disruptions, retry, health);
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
                health);
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
                health);
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
                next);
    }
}
