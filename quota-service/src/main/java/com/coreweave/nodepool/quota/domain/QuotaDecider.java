package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Conditions.Quota;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Turns one input to a quota ledger into what the world is told: the {@code QuotaChecked} of every pool whose decision
 * changed, every pool incarnation that left the ledger, and the {@code CWOverQuota} /
 * {@code CWNodePoolQuotaCheckFailed} events. An input whose check throws becomes {@code InternalError} for the pools it
 * concerns instead of an exception, so one bad record never stops the quota stream.
 */
public final class QuotaDecider {

    public static final String COMPONENT = "quota-service";

    /** The fault point where an operator's armed fault fails a pool's quota check as if the ledger threw. */
    public static final String QUOTA_CHECK = "quota-check";

    private QuotaDecider() {}

    /** The next ledger and everything to publish because of it; {@code gone} names the incarnations that left. */
    public record Result(
            QuotaLedger ledger, List<QuotaChecked> changed, List<PoolRef> gone, List<RecordedEvent> events) {}

    public static Result decide(QuotaLedger before, QuotaInput input, Instant now) {
        return decide(before, input, now, InjectedFaults.OFF);
    }

    /** The same, with a pool's change failing when an armed fault at {@link #QUOTA_CHECK} covers the pool. */
    public static Result decide(QuotaLedger before, QuotaInput input, Instant now, InjectedFaults faults) {
        String injected = input instanceof QuotaInput.PoolChanged changed
                ? faults.fire(
                        QUOTA_CHECK,
                        changed.demand().ref().zone(),
                        changed.demand().ref().org(),
                        changed.demand().ref().pool(),
                        now)
                : null;
        QuotaLedger after;
        try {
            after = injected == null ? before.apply(input, now) : before.failed(input, injected);
        } catch (RuntimeException e) {
            after = before.failed(input, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
        Map<String, QuotaChecked> was = decisions(before);
        Map<String, QuotaChecked> is = decisions(after);
        List<QuotaChecked> changed = new ArrayList<>();
        List<RecordedEvent> events = new ArrayList<>();
        is.forEach((pool, decision) -> {
            QuotaChecked previous = was.get(pool);
            if (previous != null && withoutUsage(decision).equals(withoutUsage(previous))) {
                // Only the org's total moved (another pool changed): this pool's decision is the same, and republishing
                // every pool of the quota on every change would cost n² records.
                return;
            }
            QuotaChecked stamped = new QuotaChecked(
                    decision.pool(),
                    decision.reason(),
                    decision.requestedNodes(),
                    decision.admittedNodes(),
                    decision.limit(),
                    decision.usage(),
                    decision.deleting(),
                    decision.message(),
                    now);
            changed.add(stamped);
            if (newTrouble(previous, decision)) {
                events.add(event(stamped, now));
            }
        });
        List<PoolRef> gone = was.entrySet().stream()
                .filter(e -> !is.containsKey(e.getKey())
                        || !is.get(e.getKey())
                                .pool()
                                .uid()
                                .equals(e.getValue().pool().uid()))
                .map(e -> e.getValue().pool())
                .toList();
        return new Result(after, changed, gone, events);
    }

    private static QuotaChecked withoutUsage(QuotaChecked d) {
        return new QuotaChecked(
                d.pool(),
                d.reason(),
                d.requestedNodes(),
                d.admittedNodes(),
                d.limit(),
                0,
                d.deleting(),
                d.message(),
                d.checkedAt());
    }

    /** Each pool's decision as {@code capacity-demanded} carries it (without the time it was made), by pool key. */
    public static Map<String, QuotaChecked> decisions(QuotaLedger ledger) {
        int usage = ledger.usage();
        Map<String, QuotaChecked> decisions = new TreeMap<>();
        ledger.pools().forEach((pool, entry) -> decisions.put(pool, decision(ledger, entry, usage)));
        return decisions;
    }

    private static QuotaChecked decision(QuotaLedger ledger, PoolEntry entry, int usage) {
        Integer limit = ledger.limit();
        String reason;
        String message;
        if (entry.failure() != null) {
            reason = Quota.INTERNAL_ERROR;
            message = QuotaMessages.failed(entry.failure());
        } else if (!entry.valid()) {
            reason = null;
            message = QuotaMessages.invalid();
        } else if (entry.deleting()) {
            reason = null;
            message = QuotaMessages.deleting();
        } else if (limit == null) {
            reason = Quota.NOT_SET;
            message = QuotaMessages.notSet(ledger.key(), entry.admitted());
        } else if (entry.requested() > entry.admitted()) {
            reason = Quota.OVER;
            message = QuotaMessages.wouldExceed(
                    ledger.key(),
                    entry.requested(),
                    (long) usage - entry.admitted() + entry.requested(),
                    limit,
                    entry.admitted());
        } else if (usage > limit) {
            // The reference's Over means the org is over quota for the type, so every pool of the key says so.
            reason = Quota.OVER;
            message = QuotaMessages.aboveLoweredQuota(ledger.key(), usage, limit);
        } else {
            reason = Quota.UNDER;
            message = QuotaMessages.UNDER;
        }
        return new QuotaChecked(
                entry.ref(),
                reason,
                entry.requested(),
                entry.admitted(),
                limit,
                usage,
                entry.deleting(),
                message,
                null);
    }

    /**
     * A warning is due when a pool enters a troubled state, or stays in it for a new generation (Over also for a new
     * limit): the same pool, generation, reason and limit are one fact, recorded once.
     */
    private static boolean newTrouble(QuotaChecked previous, QuotaChecked decision) {
        if (decision.reason() == null || Quota.UNDER.equals(decision.reason())) {
            return false;
        }
        return previous == null
                || !decision.reason().equals(previous.reason())
                || !decision.pool().equals(previous.pool())
                || Quota.OVER.equals(decision.reason()) && !Objects.equals(decision.limit(), previous.limit());
    }

    private static RecordedEvent event(QuotaChecked decision, Instant now) {
        CwEvent event = Quota.OVER.equals(decision.reason()) ? CwEvent.CWOverQuota : CwEvent.CWNodePoolQuotaCheckFailed;
        String cause = decision.pool().uid() + "/" + decision.pool().generation() + "/" + decision.reason()
                + (event == CwEvent.CWOverQuota ? "/limit-" + decision.limit() : "");
        return RecordedEvent.ofPool(decision.pool(), event, decision.message(), cause, COMPONENT, now);
    }
}
