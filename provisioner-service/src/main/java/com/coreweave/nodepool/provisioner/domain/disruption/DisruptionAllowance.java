package com.coreweave.nodepool.provisioner.domain.disruption;

import com.coreweave.nodepool.provisioner.domain.fleet.ProvisioningPolicy;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionLog;
import com.coreweave.nodepool.provisioner.domain.model.DisruptionReason;
import com.coreweave.nodepool.provisioner.domain.model.PoolNode;
import com.coreweave.nodepool.provisioner.domain.model.Remediation;
import com.coreweave.nodepool.provisioner.domain.model.WorkingPool;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.Disruption;
import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * How many more of a pool's nodes its disruption budgets let go out of service now, for each reason, and why the others
 * wait. A node is out of service (maxUnavailable, not surge) from its cordon for a disruption until it is back in
 * service, or, when it leaves, until its replacement is Ready; a scale-down's node until it is gone. Every budget in
 * force that governs a reason caps it; the most restrictive wins. One allowance serves one controller's pass: each
 * disruption it starts is counted at once ({@link #started}).
 */
public final class DisruptionAllowance {

    /** The longest window a budget may have: older starts are forgotten. */
    private static final Duration MAX_WINDOW = Disruption.MAX_WINDOW;

    private final WorkingPool pool;
    private final List<DisruptionBudget> budgets;
    private final int poolNodes;
    private int outOfService;

    /** What a reason may do now: {@code allowed} more nodes, the budget that says so, and when that may change. */
    public record Decision(int allowed, DisruptionBudget limit, Instant recheckAt) {}

    private DisruptionAllowance(WorkingPool pool, List<DisruptionBudget> budgets) {
        this.pool = pool;
        this.budgets = budgets;
        this.poolNodes = Math.max(pool.desired(), pool.nodes().size());
        int registered = 0;
        int out = 0;
        for (PoolNode node : pool.nodes()) {
            if (outOfService(node)) {
                out++;
            }
            if (!node.leaving() && node.phase() == Node.Phase.Registered) {
                registered++;
            }
        }
        // A replacement is Ready once the pool again holds as many registered nodes as it should.
        DisruptionLog log = pool.disruptions();
        int owed = Math.min(log.replacing(), Math.max(0, pool.desired() - registered));
        if (owed != log.replacing()) {
            pool.changeDisruptions(log.withReplacing(owed));
        }
        this.outOfService = out + owed;
    }

    public static DisruptionAllowance of(WorkingPool pool, ProvisioningPolicy policy) {
        return new DisruptionAllowance(pool, DisruptionBudget.of(pool.spec(), policy));
    }

    /**
     * A reconcile starts afresh: starts no window reaches are forgotten, and the wake-up is set again by what is still
     * held back.
     */
    static void begin(WorkingPool pool) {
        pool.changeDisruptions(
                pool.disruptions().since(pool.now().minus(MAX_WINDOW)).wakingAt(null));
    }

    /** Out of service for a disruption: cordoned and drained, rebooting, or leaving. */
    public static boolean outOfService(PoolNode node) {
        if (node.leaving()) {
            return true;
        }
        Remediation remediation = node.remediation();
        return remediation != null && remediation.underway() || node.reconfigure() == PoolNode.Reconfigure.Rebooting;
    }

    public int outOfService() {
        return outOfService;
    }

    public Decision decide(DisruptionReason reason) {
        Instant now = pool.now();
        int allowed = Integer.MAX_VALUE;
        DisruptionBudget limit = null;
        Instant recheckAt = null;
        for (DisruptionBudget budget : budgets) {
            if (!budget.governs(reason) || !budget.inForce(now)) {
                continue;
            }
            int left = Math.max(0, budget.nodes(poolNodes) - outOfService);
            Instant freedAt = null;
            if (budget.maxPerWindow() != null) {
                Instant since = now.minus(budget.window());
                List<Instant> inWindow = pool.disruptions().starts().stream()
                        .filter(s -> budget.governs(s.reason()) && s.at().isAfter(since))
                        .map(DisruptionLog.Start::at)
                        .sorted()
                        .toList();
                int rate = Math.max(0, budget.maxPerWindow() - inWindow.size());
                if (rate < left) {
                    left = rate;
                    // The window frees a place when its oldest start leaves it.
                    freedAt = inWindow.isEmpty() ? null : inWindow.get(0).plus(budget.window());
                }
            }
            if (left < allowed) {
                allowed = left;
                limit = budget;
                recheckAt = freedAt != null
                        ? freedAt
                        : budget.schedule() != null
                                ? now.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60)
                                : null;
            }
        }
        return new Decision(allowed, limit, recheckAt);
    }

    /** A disruption for {@code reason} starts: one more node out of service, one more start in the windows. */
    public void started(DisruptionReason reason) {
        outOfService++;
        pool.changeDisruptions(pool.disruptions().started(reason, pool.now()));
    }

    /**
     * An involuntary disruption (fatal hardware) starts whatever the budgets say: it holds back others while it lasts,
     * but takes no place in a budget's window.
     */
    public void involuntary() {
        outOfService++;
    }

    /**
     * An idle node leaves at once for {@code reason}: it counts in the windows, but is out of service for no time, so
     * it holds back no other node.
     */
    public void gone(DisruptionReason reason) {
        pool.changeDisruptions(pool.disruptions().started(reason, pool.now()));
    }

    /**
     * Says what the budgets hold back for {@code reason}: a {@code DisruptionBlocked} event when it differs from what
     * was said last (nothing when {@code waiting} is 0), and when to look again.
     */
    public void held(DisruptionReason reason, int waiting, String what) {
        held(reason, waiting, what, List.of());
    }

    /**
     * As {@link #held(DisruptionReason, int, String)}, with the nodes a do-not-disrupt hold keeps ({@code kept}): they
     * are named with what holds each, and looked at again when their hold changes.
     */
    public void held(DisruptionReason reason, int waiting, String what, List<PoolNode> kept) {
        DisruptionLog log = pool.disruptions();
        if (waiting == 0 && kept.isEmpty()) {
            if (log.held().containsKey(reason)) {
                pool.changeDisruptions(log.withHeld(reason, null));
            }
            return;
        }
        StringBuilder message = new StringBuilder();
        if (waiting > 0) {
            Decision decision = decide(reason);
            message.append(waiting)
                    .append(" node(s) ")
                    .append(what)
                    .append(" wait for the disruption budget: ")
                    .append(
                            decision.limit() == null
                                    ? "no budget"
                                    : decision.limit().describe(poolNodes))
                    .append(" allows ")
                    .append(decision.allowed() == 0 ? "no more" : decision.allowed() + " more")
                    .append(" now, ")
                    .append(outOfService)
                    .append(" out of service.");
            if (decision.recheckAt() != null) {
                pool.wakeBy(decision.recheckAt());
            }
        }
        if (!kept.isEmpty()) {
            message.append(message.isEmpty() ? "" : " ")
                    .append(kept.size())
                    .append(" node(s) ")
                    .append(what)
                    .append(" are held by do-not-disrupt: ")
                    .append(DoNotDisrupt.describe(kept))
                    .append('.');
        }
        pool.changeDisruptions(said(pool.disruptions(), reason, CwEvent.DisruptionBlocked, message.toString()));
    }

    /**
     * Says that something other than the budgets stops every disruption of {@code reason} waiting now: {@code event}
     * with {@code message} when it differs from what was said last; {@link #held} clears it once they go on.
     */
    public void stopped(DisruptionReason reason, CwEvent event, String message) {
        pool.changeDisruptions(said(pool.disruptions(), reason, event, message));
    }

    private DisruptionLog said(DisruptionLog log, DisruptionReason reason, CwEvent event, String message) {
        if (message.equals(log.held().get(reason))) {
            return log;
        }
        pool.poolEvent(
                event,
                message,
                pool.uid() + "/" + event.name() + "/" + reason + "/" + now() + "/"
                        + Integer.toHexString(message.hashCode()));
        return log.withHeld(reason, message);
    }

    private long now() {
        return pool.now().toEpochMilli();
    }
}
