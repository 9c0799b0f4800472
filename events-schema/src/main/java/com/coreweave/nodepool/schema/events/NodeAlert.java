package com.coreweave.nodepool.schema.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.type.TypeReference;

/**
 * The data of a {@code NodeAlertRaised} or {@code NodeAlertResolved} CloudEvent on {@code node-alert-raised}: what
 * monitoring says about one node of a pool. {@code alert} names an alert of the node-alert catalogue of reference 001
 * (e.g. {@code GPUFallenOffBus}, Xid 79); {@code details}, optional, is what monitoring saw (the GPU, the Xid text).
 * The event's {@code time} is when the alert started or ended; its {@code subject} is {@code <org>/<pool>}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeAlert(String node, String alert, String details) {

    public static final String RAISED = "NodeAlertRaised";
    public static final String RESOLVED = "NodeAlertResolved";

    /** The whole CloudEvent as Jackson reads it. */
    public static final TypeReference<CloudEvent<NodeAlert>> ENVELOPE = new TypeReference<>() {};
}
