package com.coreweave.nodepool.schema;

/**
 * The platform's size limits, shared by every service: what the API accepts and what no record may outgrow. Kafka's
 * default of 1 MiB per record holds for every topic at any pool the API accepts because of them (docs/security.md lists
 * each limit, why it is that number, and where it is enforced).
 */
public final class Limits {

    private Limits() {}

    /** The most nodes one pool may ask for ({@code targetNodes}, {@code minNodes}, {@code maxNodes}). */
    public static final int MAX_TARGET_NODES = 5_000;
    /** The largest request body the API reads; a larger one is 413. As the Kubernetes API server's 3 MiB. */
    public static final int MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;
    /**
     * The pool's labels and annotations, and its nodes' ({@code spec.nodeLabels}, {@code spec.nodeAnnotations}), keys
     * and values counted in UTF-8 bytes: as Kubernetes bounds an object's annotations.
     */
    public static final int MAX_LABELS_AND_ANNOTATIONS_BYTES = 256 * 1024;
    /**
     * {@code spec.nodeLabels} and {@code spec.nodeAnnotations} together, serialized: every node of the pool carries
     * them, so a 5,000-node pool holds them 5,000 times.
     */
    public static final int MAX_NODE_METADATA_BYTES = 16 * 1024;
    /**
     * The largest pool as stored (metadata with managed fields, and spec), serialized as JSON. A pool's records carry
     * it up to three times (the api-service's view: the accepted pool, the last valid spec, the published resource),
     * and each must stay under Kafka's 1 MiB.
     */
    public static final int MAX_POOL_BYTES = 256 * 1024;
    /**
     * Labels, annotations and taints a user may set on one node with kubectl (each kind counted apart); their labels
     * and annotations together are bounded by {@link #MAX_NODE_METADATA_BYTES} as the pool's own are.
     */
    public static final int MAX_USER_NODE_MARKS = 64;
    /** Causes listed in one 422 or one dead-letter reason; the rest are counted ("and N more"). */
    public static final int MAX_CAUSES = 100;
    /** The {@code dlq.reason} header, in UTF-8 bytes. */
    public static final int MAX_DLQ_REASON_BYTES = 1024;
    /** Events of one change that travel in one {@code nodepool-event-recorded} record; more go in further records. */
    public static final int MAX_EVENTS_PER_RECORD = 100;
    /**
     * Nodes one {@code spot-reclaim-requested} record names; a reclaim of more goes out in further records of the same
     * reclaim (a node's name is tens of bytes, so 500 make some 30 KB).
     */
    public static final int MAX_NODES_PER_RECLAIM = 500;
    /** The message of a recorded event, in characters; longer ones are cut with an ellipsis. */
    public static final int MAX_EVENT_MESSAGE_CHARS = 1024;
    /** Operations of one JSON patch. */
    public static final int MAX_JSON_PATCH_OPERATIONS = 10_000;
    /** Bytes one JSON patch may copy ({@code copy}, and {@code move} out of a subtree), summed over its operations. */
    public static final int MAX_JSON_PATCH_COPIED_BYTES = 1024 * 1024;
    /** Kafka's default largest record (producer {@code max.request.size}, broker {@code message.max.bytes}). */
    public static final int MAX_RECORD_BYTES = 1024 * 1024;
    /**
     * Bytes of one audit event as JSON: every field a caller can choose is cut to its own bound first, so a request or
     * a record costs the trail the same however large its headers or values were.
     */
    public static final int MAX_AUDIT_EVENT_BYTES = 4 * 1024;
}
