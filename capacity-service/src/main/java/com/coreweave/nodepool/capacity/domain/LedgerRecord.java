package com.coreweave.nodepool.capacity.domain;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * What the {@code ledgers} store holds of a ledger, one record per key ({@link LedgerKeys}): its head, each pool's
 * demand, each machine a pool holds, each machine out of service, each remembered fleet change. An input writes only
 * the records it changed.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = LedgerHead.class, name = "Head"),
    @JsonSubTypes.Type(value = PoolDemand.class, name = "Pool"),
    @JsonSubTypes.Type(value = HeldMachine.class, name = "Held"),
    @JsonSubTypes.Type(value = OutOfService.class, name = "Machine"),
    @JsonSubTypes.Type(value = RememberedChange.class, name = "FleetChange")
})
public sealed interface LedgerRecord permits LedgerHead, PoolDemand, HeldMachine, OutOfService, RememberedChange {}
