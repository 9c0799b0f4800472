package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.schema.events.PoolDemand;
import com.coreweave.nodepool.schema.events.PoolOffer;

/** An autoscaling pool as the demand planner holds it: its latest offer and the demand last given it. */
record PlannedPool(PoolOffer offer, PoolDemand given) {}
