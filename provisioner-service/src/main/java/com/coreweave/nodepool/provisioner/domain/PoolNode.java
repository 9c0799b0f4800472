package com.coreweave.nodepool.provisioner.domain;

import com.coreweave.nodepool.schema.events.Grant;
import com.coreweave.nodepool.schema.resource.Node;
import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Instant;

/**
 * One node of a pool as the provisioner keeps it: the node as published, the grant it runs on, its durable
 * deadlines (boot end, drain end), the grace period its workload last reported, why it is leaving (null while it
 * stays), and where it is in a reconfigure reboot (null when none was asked for).
 */
public record PoolNode(Node node, Grant grant, Instant bootDeadline, Instant drainDeadline, Integer graceSeconds,
                       RemovalCause removal, Reconfigure reconfigure) {

  /** A reconfigure reboot: asked for (the node reboots once it is idle), then rebooting into the active config. */
  public enum Reconfigure { Requested, Rebooting }

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

  /** When this node's next timer fires: the end of its boot, or of its drain; null when none runs. */
  @JsonIgnore
  public Instant deadline() {
    if (phase() == Node.Phase.Booting) {
      return bootDeadline;
    }
    return phase() == Node.Phase.Draining ? drainDeadline : null;
  }

  public PoolNode withNode(Node next) {
    return new PoolNode(next, grant, bootDeadline, drainDeadline, graceSeconds, removal, reconfigure);
  }

  public PoolNode booting(Node next, Instant deadline) {
    return new PoolNode(next, grant, deadline, null, graceSeconds, removal, reconfigure);
  }

  public PoolNode registered(Node next) {
    return new PoolNode(next, grant, null, drainDeadline, graceSeconds, removal, reconfigure);
  }

  public PoolNode leaving(Node next, RemovalCause cause, Instant drainUntil) {
    return new PoolNode(next, grant, bootDeadline, drainUntil, graceSeconds, cause, null);
  }

  public PoolNode staying(Node next) {
    return new PoolNode(next, grant, bootDeadline, null, graceSeconds, null, reconfigure);
  }

  public PoolNode withGraceSeconds(Integer seconds) {
    return new PoolNode(node, grant, bootDeadline, drainDeadline, seconds, removal, reconfigure);
  }

  public PoolNode withReconfigure(Reconfigure next) {
    return new PoolNode(node, grant, bootDeadline, drainDeadline, graceSeconds, removal, next);
  }
}
