package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.QuotaLimit;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;

/**
 * Everything that changes one quota ledger ({@code <org>/<zone>/<instanceType>}). Pool inputs travel through the
 * service's repartition topic as JSON, hence the type names; limit inputs come straight from
 * {@code quota-limit-set}, which is already keyed by quota.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = QuotaInput.PoolChanged.class, name = "PoolChanged"),
    @JsonSubTypes.Type(value = QuotaInput.PoolGone.class, name = "PoolGone"),
    @JsonSubTypes.Type(value = QuotaInput.LimitSet.class, name = "LimitSet"),
    @JsonSubTypes.Type(value = QuotaInput.LimitRemoved.class, name = "LimitRemoved")})
public sealed interface QuotaInput {

  /** The pool's accepted state changed (created, spec changed, validated again, deletion started). */
  record PoolChanged(PoolDemand demand) implements QuotaInput {
  }

  /** The pool incarnation {@code uid} is gone (its {@code nodepool-accepted} tombstone, or it moved elsewhere). */
  record PoolGone(String pool, String uid) implements QuotaInput {
  }

  /** An operator set the quota. */
  record LimitSet(int maxNodes, Instant setAt) implements QuotaInput {
  }

  /** An operator removed the quota. */
  record LimitRemoved() implements QuotaInput {
  }

  /** The input a {@code quota-limit-set} record stands for (a tombstone removes the quota). */
  static QuotaInput ofLimit(QuotaLimit limit) {
    return limit == null ? new LimitRemoved() : new LimitSet(limit.maxNodes(), limit.setAt());
  }
}
