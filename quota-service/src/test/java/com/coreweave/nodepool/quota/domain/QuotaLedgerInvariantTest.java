package com.coreweave.nodepool.quota.domain;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.quota.Pools;
import com.coreweave.nodepool.quota.domain.QuotaInput.LimitRemoved;
import com.coreweave.nodepool.quota.domain.QuotaInput.LimitSet;
import com.coreweave.nodepool.quota.domain.QuotaInput.PoolChanged;
import com.coreweave.nodepool.quota.domain.QuotaInput.PoolGone;
import com.coreweave.nodepool.schema.events.QuotaKey;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * Random sequences of pool and quota changes (seeded, so a failure replays) against the invariant of the issue: the
 * ledger never admits past the quota, never scales up partially, takes nothing away except by a pool's own scale-down
 * or exit, and leaves no waiting pool that would fit.
 */
class QuotaLedgerInvariantTest {

    private static final String[] NAMES = {"a", "b", "c", "d", "e"};

    @RepeatedTest(20)
    void shouldNeverAdmitPastTheQuota(RepetitionInfo repetition) {
        Random random = new Random(repetition.getCurrentRepetition());
        QuotaLedger ledger = QuotaLedger.empty(new QuotaKey("demo", Pools.ZONE, Pools.TYPE));
        Map<String, Long> generations = new HashMap<>();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        for (int step = 0; step < 400; step++) {
            now = now.plusMillis(random.nextInt(3));
            String name = NAMES[random.nextInt(NAMES.length)];
            QuotaInput input = switch (random.nextInt(10)) {
                case 0 -> new LimitSet(random.nextInt(25), now);
                case 1 -> new LimitRemoved();
                case 2 -> new PoolGone("demo/" + name, "uid-" + name);
                case 3 ->
                    new PoolChanged(Pools.deleting(name, "uid-" + name, generations.merge(name, 1L, Long::sum), 3));
                case 4 ->
                    new PoolChanged(Pools.invalid(name, "uid-" + name, generations.merge(name, 1L, Long::sum), 3));
                default ->
                    new PoolChanged(Pools.demand(
                            name, "uid-" + name, generations.merge(name, 1L, Long::sum), random.nextInt(12)));
            };
            QuotaLedger next = QuotaDecider.decide(ledger, input, now).ledger();
            check(ledger, input, next, "step " + step + ": " + input);
            ledger = next;
        }
    }

    private static void check(QuotaLedger before, QuotaInput input, QuotaLedger after, String step) {
        boolean grew = false;
        for (var e : after.pools().entrySet()) {
            PoolEntry pool = e.getValue();
            PoolEntry held = before.pools().get(e.getKey());
            int heldAdmitted = held == null ? 0 : held.admitted();
            assertThat(pool.admitted()).as(step).isBetween(0, Math.max(0, pool.requested()));
            if (!pool.valid() || pool.deleting()) {
                assertThat(pool.admitted()).as(step).isZero();
            }
            if (pool.admitted() > heldAdmitted) {
                grew = true;
                assertThat(pool.admitted()).as(step + ": no partial scale-up").isEqualTo(pool.requested());
            }
            if (pool.admitted() < heldAdmitted
                    && !(input instanceof PoolChanged changed
                            && changed.demand().pool().equals(e.getKey()))) {
                throw new AssertionError(step + ": " + e.getKey() + " lost nodes it did not give up");
            }
            if (after.limit() != null && pool.waiting()) {
                assertThat(after.usage() - pool.admitted() + (long) pool.requested())
                        .as(step + ": " + e.getKey() + " waits although it fits")
                        .isGreaterThan(after.limit());
            }
        }
        if (grew) {
            assertThat(after.limit()).as(step + ": admitted without a quota").isNotNull();
            assertThat(after.usage()).as(step + ": admitted past the quota").isLessThanOrEqualTo(after.limit());
        }
    }
}
