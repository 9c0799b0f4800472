package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What the quota check needs of an accepted pool: which incarnation it is, how many nodes it asks for
 * ({@code spec.targetNodes}), whether it is checked at all (a pool that is invalid or being deleted is not), and
 * whether the incarnation {@code moved} here from another quota's ledger (see {@link PoolEntry#moved}).
 */
public record PoolDemand(PoolRef ref, int requested, boolean valid, boolean deleting, boolean moved) {

  /** The demand of the generation in force: an invalid later generation keeps the last valid one's admission. */
  public static PoolDemand of(NodePoolAccepted accepted) {
    NodePoolAccepted inForce = accepted.inForce();
    return new PoolDemand(PoolRef.of(inForce), inForce.nodePool().spec().target(),
        inForce.validation().valid(), inForce.deleting(), false);
  }

  /** The same demand, of an incarnation that came from another quota's ledger. */
  public PoolDemand movedHere() {
    return new PoolDemand(ref, requested, valid, deleting, true);
  }

  /** The {@code <org>/<pool>} key of the pool. */
  @JsonIgnore
  public String pool() {
    return ref.key().toString();
  }

  /** The quota the pool draws on. */
  @JsonIgnore
  public QuotaKey quotaKey() {
    return new QuotaKey(ref.org(), ref.zone(), ref.instanceType());
  }

  /** Only a valid pool that is not being deleted is checked against the quota and may hold nodes. */
  @JsonIgnore
  public boolean checked() {
    return valid && !deleting;
  }
}
