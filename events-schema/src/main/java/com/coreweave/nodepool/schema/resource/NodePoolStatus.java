package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * The observed state of a NodePool, every status field of the reference (000) plus {@code observedGeneration} and an
 * autoscaling pool's {@code pendingDemand}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
    "observedGeneration",
    "conditions",
    "currentNodes",
    "inProgress",
    "queuedNodes",
    "nodeProfile",
    "pendingNodeConfiguration",
    "nodeConfigurationRevisions",
    "disruption",
    "pendingDemand"
})
public record NodePoolStatus(
        Long observedGeneration,
        List<Condition> conditions,
        Integer currentNodes,
        Integer inProgress,
        Integer queuedNodes,
        String nodeProfile,
        PendingNodeConfiguration pendingNodeConfiguration,
        List<NodeConfigurationRevision> nodeConfigurationRevisions,
        DisruptionStatus disruption,
        PendingDemand pendingDemand) {

    public Condition condition(String type) {
        return conditions == null
                ? null
                : conditions.stream()
                        .filter(c -> c.type().equals(type))
                        .findFirst()
                        .orElse(null);
    }
}
