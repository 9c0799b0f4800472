package com.coreweave.nodepool.provisioner.streams;

import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.events.WorkloadStatus;
import java.time.Instant;

/** A workload the demand planner holds: as last told, when it first arrived, and the verdict last published. */
record PlannedWorkload(Workload workload, Instant arrivedAt, WorkloadStatus published) {}
