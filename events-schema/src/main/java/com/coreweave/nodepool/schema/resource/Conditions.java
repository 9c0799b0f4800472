package com.coreweave.nodepool.schema.resource;

/** The NodePool condition types and their reasons, exactly as reference 000 names them. */
public final class Conditions {

    private Conditions() {}

    public static final String VALIDATED = "Validated";
    public static final String AT_TARGET = "AtTarget";
    public static final String NODES_REMOVED = "NodesRemoved";
    public static final String CAPACITY = "Capacity";
    public static final String QUOTA = "Quota";
    public static final String NODE_RECONFIGURATION_REQUIRED = "NodeReconfigurationRequired";

    /** Reasons of {@code Validated}. */
    public static final class Validated {
        public static final String VALID = "Valid";
        public static final String INVALID = "Invalid";
        public static final String INTERNAL_ERROR = "InternalError";

        private Validated() {}
    }

    /** Reasons of {@code AtTarget}. */
    public static final class AtTarget {
        public static final String TARGET_MET = "TargetMet";
        public static final String PENDING_DELETE = "PendingDelete";
        public static final String OVER_TARGET = "OverTarget";
        public static final String UNDER_TARGET = "UnderTarget";
        public static final String INTERNAL_ERROR = "InternalError";

        private AtTarget() {}
    }

    /** Reasons of {@code NodesRemoved}. */
    public static final class NodesRemoved {
        public static final String COMPLETE = "Complete";
        public static final String PENDING = "Pending";
        public static final String INTERNAL_ERROR = "InternalError";

        private NodesRemoved() {}
    }

    /** Reasons of {@code Capacity}. */
    public static final class Capacity {
        public static final String SUFFICIENT = "Sufficient";
        public static final String PARTIAL = "Partial";
        public static final String NONE_AVAILABLE = "NoneAvailable";
        public static final String NONE_AVAILABLE_NODE_AFFINITY = "NoneAvailableNodeAffinity";
        public static final String PARTIAL_NODE_AFFINITY = "PartialNodeAffinity";
        public static final String QUEUED_AWAITING_CAPACITY = "QueuedAwaitingCapacity";
        public static final String INTERNAL_ERROR = "InternalError";

        private Capacity() {}
    }

    /** Reasons of {@code Quota}. */
    public static final class Quota {
        public static final String UNDER = "Under";
        public static final String OVER = "Over";
        public static final String NOT_SET = "NotSet";
        public static final String INTERNAL_ERROR = "InternalError";

        private Quota() {}
    }

    /** Reasons of {@code NodeReconfigurationRequired}. */
    public static final class NodeReconfigurationRequired {
        public static final String STAGED_NODE_CONFIG = "StagedNodeConfig";
        public static final String ALL_NODES_UP_TO_DATE = "AllNodesUpToDate";
        public static final String INTERNAL_ERROR = "InternalError";

        private NodeReconfigurationRequired() {}
    }
}
