package com.coreweave.nodepool.provisioner.domain.disruption;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.schema.resource.CronSchedule;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One disruption budget as the provisioner applies it: at most {@code nodes} (a count, or a percentage of the pool
 * rounded up) out of service at once for the reasons it governs, while it is in force ({@code duration} after each
 * match of {@code schedule}, or always), and at most {@code maxPerWindow} disruptions started within {@code window}. A
 * budget the API let through but that does not read (it cannot happen) errs on the side of the nodes: {@code nodes}
 * that do not read allow none, a schedule that does not read is always in force.
 */
public record DisruptionBudget(
        String nodes,
        CronSchedule schedule,
        Duration duration,
        Set<DisruptionReason> reasons,
        Integer maxPerWindow,
        Duration window,
        boolean platformDefault) {

    /**
     * The pool's budgets: the ones its spec writes, and for each reason none of them governs the platform's default
     * (Unhealthy: {@code provisioner.health.max-unhealthy-percent}, Reconfigure:
     * {@code provisioner.max-concurrent-reboots}, Expired, for a pool whose nodes expire: 10 % and at least one;
     * ScaleDown has none, as before budgets).
     */
    static List<DisruptionBudget> of(NodePoolSpec spec, ProvisioningPolicy policy) {
        List<DisruptionBudget> budgets = new ArrayList<>();
        Set<DisruptionReason> governed = EnumSet.noneOf(DisruptionReason.class);
        for (Disruption.Budget written : spec.budgets()) {
            DisruptionBudget budget = of(written);
            budgets.add(budget);
            governed.addAll(budget.reasons());
        }
        if (!governed.contains(DisruptionReason.Unhealthy)) {
            budgets.add(platformDefault(policy.repair().maxUnhealthyPercent() + "%", DisruptionReason.Unhealthy));
        }
        if (spec.expireAfter() != null && !governed.contains(DisruptionReason.Expired)) {
            // Karpenter's default budget: nodes that expire together are not all rotated at once.
            budgets.add(platformDefault("10%", DisruptionReason.Expired));
        }
        if (!governed.contains(DisruptionReason.Reconfigure)) {
            budgets.add(platformDefault(
                    String.valueOf(Math.min(9999, policy.maxConcurrentReboots())), DisruptionReason.Reconfigure));
        }
        return budgets;
    }

    static DisruptionBudget of(Disruption.Budget written) {
        Set<DisruptionReason> reasons = EnumSet.noneOf(DisruptionReason.class);
        if (written.reasons() == null || written.reasons().isEmpty()) {
            reasons.addAll(EnumSet.allOf(DisruptionReason.class));
        } else {
            for (String reason : written.reasons()) {
                for (DisruptionReason known : DisruptionReason.values()) {
                    if (known.name().equals(reason)) {
                        reasons.add(known);
                    }
                }
            }
        }
        CronSchedule schedule = null;
        Duration duration = Disruption.duration(written.duration());
        if (written.schedule() != null && CronSchedule.error(written.schedule()) == null && duration != null) {
            schedule = CronSchedule.parse(written.schedule());
        }
        Duration window = Disruption.duration(written.window());
        boolean rated = written.maxPerWindow() != null && window != null && !window.isZero();
        return new DisruptionBudget(
                written.nodes(),
                schedule,
                schedule == null ? null : duration,
                Set.copyOf(reasons),
                rated ? written.maxPerWindow() : null,
                rated ? window : null,
                false);
    }

    private static DisruptionBudget platformDefault(String nodes, DisruptionReason reason) {
        return new DisruptionBudget(nodes, null, null, Set.of(reason), null, null, true);
    }

    boolean governs(DisruptionReason reason) {
        return reasons.contains(reason);
    }

    /**
     * Whether the budget is in force at {@code now}: always without a schedule, else for its duration after a match.
     */
    boolean inForce(Instant now) {
        return schedule == null || schedule.lastMatch(now, duration.minusNanos(1)) != null;
    }

    /** How many nodes of a pool of {@code poolNodes} may be out of service under this budget. */
    int nodes(int poolNodes) {
        int share = NodeShare.of(nodes, poolNodes, true);
        // The platform's repair budget always let one node at a time be repaired; its default still does.
        return platformDefault && NodeShare.percentage(nodes) ? Math.max(1, share) : share;
    }

    /** The budget as a user recognises it in a message: {@code nodes "20%" (1 of 5) from "0 9 * * 1-5" for 8h}. */
    String describe(int poolNodes) {
        StringBuilder text = new StringBuilder(platformDefault ? "the platform's default budget" : "budget");
        text.append(" nodes \"").append(nodes).append('"');
        if (nodes != null && nodes.endsWith("%")) {
            text.append(" (")
                    .append(nodes(poolNodes))
                    .append(" of ")
                    .append(poolNodes)
                    .append(')');
        }
        if (schedule != null) {
            text.append(" from \"").append(schedule).append("\" for ").append(shown(duration));
        }
        if (maxPerWindow != null) {
            text.append(", at most ").append(maxPerWindow).append(" per ").append(shown(window));
        }
        return text.toString();
    }

    private static String shown(Duration d) {
        return d.toString().substring(2).toLowerCase(Locale.ROOT);
    }
}
