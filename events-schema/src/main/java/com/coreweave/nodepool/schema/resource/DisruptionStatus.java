package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * What the pool's voluntary disruptions look like now ({@code status.disruption}): how many of its nodes are out of
 * service for one (cordoned for a drain, rebooting, leaving, or removed with the replacement not Ready yet), and, for
 * each reason its budgets hold back, the last word on why. Not in the reference; {@code kubectl describe} shows it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"outOfService", "blocked"})
public record DisruptionStatus(int outOfService, List<Blocked> blocked) {

    public DisruptionStatus {
        blocked = blocked == null || blocked.isEmpty() ? null : List.copyOf(blocked);
    }

    /** Disruptions of {@code reason} (ScaleDown, Reconfigure, Unhealthy) the budgets hold back, and why. */
    @JsonPropertyOrder({"reason", "message"})
    public record Blocked(String reason, String message) {}
}
