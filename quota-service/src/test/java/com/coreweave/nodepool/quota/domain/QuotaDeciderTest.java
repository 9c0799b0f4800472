package com.coreweave.nodepool.quota.domain;

import static com.coreweave.nodepool.quota.Pools.TYPE;
import static com.coreweave.nodepool.quota.Pools.ZONE;
import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.faults.ArmedFault;
import com.coreweave.nodepool.kit.faults.FaultScope;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.quota.Pools;
import com.coreweave.nodepool.quota.domain.QuotaInput.LimitRemoved;
import com.coreweave.nodepool.quota.domain.QuotaInput.LimitSet;
import com.coreweave.nodepool.quota.domain.QuotaInput.PoolChanged;
import com.coreweave.nodepool.quota.domain.QuotaInput.PoolGone;
import com.coreweave.nodepool.schema.events.QuotaChecked;
import com.coreweave.nodepool.schema.events.QuotaKey;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.Conditions.Quota;
import com.coreweave.nodepool.schema.resource.CwEvent;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The quota rules, one ledger of org "demo" for gd-8xa100-i128 in US-EAST-04A, input by input. */
class QuotaDeciderTest {

    static final QuotaKey KEY = new QuotaKey("demo", ZONE, TYPE);
    static final String OVER_SENTENCE = "NodePool targetNodes pushes you over quota for gd-8xa100-i128 in US-EAST-04A.";

    private QuotaLedger ledger = QuotaLedger.empty(KEY);
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");

    private QuotaDecider.Result when(QuotaInput input) {
        now = now.plusSeconds(1);
        QuotaDecider.Result result = QuotaDecider.decide(ledger, input, now);
        ledger = result.ledger();
        return result;
    }

    private QuotaDecider.Result limit(int maxNodes) {
        return when(new LimitSet(maxNodes, now));
    }

    private QuotaDecider.Result pool(String name, int target) {
        return pool(name, 1, target);
    }

    private QuotaDecider.Result pool(String name, long generation, int target) {
        return when(new PoolChanged(Pools.demand(name, "uid-" + name, generation, target)));
    }

    private static QuotaChecked decision(QuotaDecider.Result result, String name) {
        return result.changed().stream()
                .filter(d -> d.pool().pool().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no new decision for " + name + " in " + result.changed()));
    }

    private QuotaChecked current(String name) {
        return QuotaDecider.decisions(ledger).get("demo/" + name);
    }

    @Nested
    class Reasons {

        @Test
        void shouldAdmitAPoolWhoseRequestFits() {
            limit(12);

            QuotaChecked a = decision(pool("a", 8), "a");

            assertThat(a.reason()).isEqualTo(Quota.UNDER);
            assertThat(a.message()).isEqualTo("NodePool is within instance type quota.");
            assertThat(a.requestedNodes()).isEqualTo(8);
            assertThat(a.admittedNodes()).isEqualTo(8);
            assertThat(a.limit()).isEqualTo(12);
            assertThat(a.usage()).isEqualTo(8);
            assertThat(a.checkedAt()).isEqualTo(now);
        }

        @Test
        void shouldHoldAPoolThatWouldGoOverAndSayByHowMuch() {
            limit(12);
            pool("a", 4);

            QuotaDecider.Result result = pool("b", 10);

            QuotaChecked b = decision(result, "b");
            assertThat(b.reason()).isEqualTo(Quota.OVER);
            assertThat(b.admittedNodes()).isZero();
            assertThat(b.message())
                    .isEqualTo(OVER_SENTENCE + " targetNodes 10 would use 14 of 12 gd-8xa100-i128 in "
                            + "US-EAST-04A: 2 over quota. The pool stays at 0 admitted node(s) and scales up by itself once the whole "
                            + "request fits.");
            assertThat(result.events()).singleElement().satisfies(e -> {
                assertThat(e.reason()).isEqualTo("CWOverQuota");
                assertThat(e.type()).isEqualTo(CwEvent.WARNING);
                assertThat(e.message()).startsWith(OVER_SENTENCE);
                assertThat(e.id()).isEqualTo("quota-service/uid-b/1/Over/limit-12/CWOverQuota");
                assertThat(e.poolUid()).isEqualTo("uid-b");
            });
        }

        @Test
        void shouldReportNotSetAndAdmitNothingWithoutAQuota() {
            QuotaDecider.Result result = pool("a", 3);

            QuotaChecked a = decision(result, "a");
            assertThat(a.reason()).isEqualTo(Quota.NOT_SET);
            assertThat(a.admittedNodes()).isZero();
            assertThat(a.limit()).isNull();
            assertThat(a.message()).isEqualTo("Quota not found for instance type gd-8xa100-i128 in zone US-EAST-04A.");
            assertThat(result.events()).singleElement().satisfies(e -> {
                assertThat(e.reason()).isEqualTo(CwEvent.CWNodePoolQuotaCheckFailed.reason());
                assertThat(e.message()).isEqualTo(a.message());
            });
        }

        @Test
        void shouldReportInternalErrorWhenTheCheckFailsAndKeepDecidingTheOthers() {
            limit(12);
            pool("a", 2);

            QuotaDecider.Result failed = pool("a", 2, -3);

            QuotaChecked a = decision(failed, "a");
            assertThat(a.reason()).isEqualTo(Quota.INTERNAL_ERROR);
            assertThat(a.admittedNodes()).as("keeps what it held").isEqualTo(2);
            assertThat(a.message()).isEqualTo("Quota check failed: targetNodes -3 is negative");
            assertThat(failed.events()).singleElement().satisfies(e -> {
                assertThat(e.reason()).isEqualTo("CWNodePoolQuotaCheckFailed");
                assertThat(e.message()).isEqualTo(a.message());
            });
            assertThat(decision(pool("b", 4), "b").reason()).isEqualTo(Quota.UNDER);
            assertThat(decision(pool("a", 3, 5), "a").reason())
                    .as("its next change is checked again")
                    .isEqualTo(Quota.UNDER);
        }

        @Test
        void shouldReportInternalErrorForAPoolAnArmedFaultCoversUntilDisarmed() {
            InjectedFaults faults = new InjectedFaults(Set.of(QuotaDecider.QUOTA_CHECK));
            FaultScope scope = new FaultScope(null, "demo", "a");
            faults.arm(new ArmedFault(QuotaDecider.QUOTA_CHECK, scope, null, null, "drill", "admin", now));
            limit(12);

            QuotaDecider.Result failed =
                    QuotaDecider.decide(ledger, new PoolChanged(Pools.demand("a", "uid-a", 1, 2)), now, faults);
            ledger = failed.ledger();

            QuotaChecked a = decision(failed, "a");
            assertThat(a.reason()).isEqualTo(Quota.INTERNAL_ERROR);
            assertThat(a.message()).contains("injected fault quota-check@org=demo,pool=a armed by admin: drill");
            assertThat(failed.events()).extracting(RecordedEvent::reason).containsExactly("CWNodePoolQuotaCheckFailed");
            assertThat(QuotaDecider.decide(ledger, new PoolChanged(Pools.demand("b", "uid-b", 1, 2)), now, faults)
                            .changed())
                    .extracting(QuotaChecked::reason)
                    .as("another pool of the quota is checked")
                    .containsExactly(Quota.UNDER);
            faults.disarm(QuotaDecider.QUOTA_CHECK, scope);
            assertThat(decision(pool("a", 2, 2), "a").reason()).isEqualTo(Quota.UNDER);
        }

        @Test
        void shouldCheckNoQuotaForAnInvalidPool() {
            limit(12);

            QuotaDecider.Result result = when(new PoolChanged(Pools.invalid("a", "uid-a", 1, 5)));

            QuotaChecked a = decision(result, "a");
            assertThat(a.reason()).isNull();
            assertThat(a.admittedNodes()).isZero();
            assertThat(a.requestedNodes()).isEqualTo(5);
            assertThat(result.events()).isEmpty();
        }

        @Test
        void shouldAdmitNothingToADeletingPool() {
            limit(12);
            pool("a", 5);

            QuotaChecked a = decision(when(new PoolChanged(Pools.deleting("a", "uid-a", 1, 5))), "a");

            assertThat(a.reason()).isNull();
            assertThat(a.deleting()).isTrue();
            assertThat(a.admittedNodes()).isZero();
            assertThat(a.usage()).isZero();
        }
    }

    @Nested
    class ScaleUpAndDown {

        @Test
        void shouldKeepWhatAPoolHeldWhenItsScaleUpDoesNotFit() {
            limit(12);
            pool("a", 8);

            QuotaChecked a = decision(pool("a", 2, 14), "a");

            assertThat(a.reason()).isEqualTo(Quota.OVER);
            assertThat(a.admittedNodes()).as("no partial scale-up").isEqualTo(8);
            assertThat(a.message())
                    .contains("targetNodes 14 would use 14 of 12", "2 over quota", "stays at 8 admitted node(s)");
        }

        @Test
        void shouldAlwaysAdmitAScaleDownEvenAboveALoweredQuota() {
            limit(12);
            pool("a", 10);
            limit(4);

            QuotaChecked down = decision(pool("a", 2, 6), "a");

            assertThat(down.admittedNodes()).isEqualTo(6);
            assertThat(down.reason()).as("still above the quota").isEqualTo(Quota.OVER);
            assertThat(down.message()).contains("hold 6 of 4", "2 over quota");
            QuotaChecked within = decision(pool("a", 3, 3), "a");
            assertThat(within.admittedNodes()).isEqualTo(3);
            assertThat(within.reason()).isEqualTo(Quota.UNDER);
        }

        @Test
        void shouldAdmitAScaleDownWithoutAQuota() {
            limit(10);
            pool("a", 5);
            when(new LimitRemoved());

            assertThat(decision(pool("a", 2, 7), "a").admittedNodes())
                    .as("no scale-up without a quota")
                    .isEqualTo(5);
            QuotaChecked down = decision(pool("a", 3, 2), "a");
            assertThat(down.admittedNodes()).isEqualTo(2);
            assertThat(down.reason()).isEqualTo(Quota.NOT_SET);
        }

        @Test
        void shouldNeverAdmitTwoPoolsRacingForTheLastRoom() {
            limit(10);

            pool("a", 6);
            pool("b", 6);

            assertThat(current("a").admittedNodes() + current("b").admittedNodes())
                    .isEqualTo(6);
            assertThat(current("a").reason()).isEqualTo(Quota.UNDER);
            assertThat(current("b").reason()).isEqualTo(Quota.OVER);
        }
    }

    @Nested
    class LevelTriggered {

        @Test
        void shouldAdmitAWaitingPoolByItselfWhenTheQuotaIsRaised() {
            limit(4);
            pool("a", 4);
            pool("b", 3);

            QuotaDecider.Result raised = limit(7);

            QuotaChecked b = decision(raised, "b");
            assertThat(b.reason()).isEqualTo(Quota.UNDER);
            assertThat(b.admittedNodes()).isEqualTo(3);
            assertThat(raised.events()).isEmpty();
        }

        @Test
        void shouldAdmitAPoolThatWaitedForAQuotaOnceOneIsSet() {
            pool("a", 3);

            QuotaChecked a = decision(limit(5), "a");

            assertThat(a.reason()).isEqualTo(Quota.UNDER);
            assertThat(a.admittedNodes()).isEqualTo(3);
        }

        @Test
        void shouldAdmitWaitingPoolsInTheOrderTheyStartedWaiting() {
            limit(4);
            pool("a", 4);
            pool("c", 3);
            pool("b", 3);

            limit(7);

            assertThat(current("c").admittedNodes()).as("waited first").isEqualTo(3);
            assertThat(current("b").admittedNodes()).isZero();
            assertThat(current("b").reason()).isEqualTo(Quota.OVER);
        }

        @Test
        void shouldLetALaterSmallerRequestThroughWhenTheEarlierOneStillDoesNotFit() {
            limit(4);
            pool("a", 4);
            pool("big", 5);
            pool("small", 2);

            limit(7);

            assertThat(current("big").admittedNodes()).isZero();
            assertThat(current("small").admittedNodes()).isEqualTo(2);
        }

        @Test
        void shouldAdmitAWaitingPoolWhenAnotherScalesDown() {
            limit(10);
            pool("a", 8);
            pool("b", 4);

            QuotaDecider.Result result = pool("a", 2, 6);

            assertThat(decision(result, "b").admittedNodes()).isEqualTo(4);
            assertThat(decision(result, "a").admittedNodes()).isEqualTo(6);
        }

        @Test
        void shouldAdmitAWaitingPoolWhenAnotherIsGone() {
            limit(10);
            pool("a", 8);
            pool("b", 4);

            QuotaDecider.Result result = when(new PoolGone("demo/a", "uid-a"));

            assertThat(result.gone()).singleElement().satisfies(ref -> {
                assertThat(ref.pool()).isEqualTo("a");
                assertThat(ref.uid()).isEqualTo("uid-a");
            });
            assertThat(decision(result, "b").admittedNodes()).isEqualTo(4);
            assertThat(result.ledger().pools()).containsOnlyKeys("demo/b");
        }

        @Test
        void shouldAdmitAWaitingPoolWhenAnotherStartsDeleting() {
            limit(10);
            pool("a", 8);
            pool("b", 4);

            QuotaDecider.Result result = when(new PoolChanged(Pools.deleting("a", "uid-a", 1, 8)));

            assertThat(decision(result, "b").admittedNodes()).isEqualTo(4);
        }

        @Test
        void shouldTakeNothingAwayButReportOverWhenTheQuotaIsLoweredBelowUsage() {
            limit(12);
            pool("a", 6);
            pool("b", 4);

            QuotaDecider.Result lowered = limit(8);

            for (String name : new String[] {"a", "b"}) {
                QuotaChecked d = decision(lowered, name);
                assertThat(d.reason()).isEqualTo(Quota.OVER);
                assertThat(d.message())
                        .startsWith(OVER_SENTENCE)
                        .contains("hold 10 of 8", "2 over quota", "lowered below usage", "No node is removed");
            }
            assertThat(current("a").admittedNodes()).isEqualTo(6);
            assertThat(current("b").admittedNodes()).isEqualTo(4);
            assertThat(lowered.events())
                    .extracting(RecordedEvent::reason)
                    .containsExactly("CWOverQuota", "CWOverQuota");
        }

        @Test
        void shouldKeepAdmittedNodesButReportNotSetWhenTheQuotaIsRemoved() {
            limit(10);
            pool("a", 5);

            QuotaChecked a = decision(when(new LimitRemoved()), "a");

            assertThat(a.reason()).isEqualTo(Quota.NOT_SET);
            assertThat(a.admittedNodes()).isEqualTo(5);
            assertThat(a.message())
                    .startsWith("Quota not found for instance type gd-8xa100-i128 in zone US-EAST-04A.")
                    .contains("keeps its 5 admitted node(s)");
        }
    }

    @Nested
    class Incarnations {

        @Test
        void shouldIgnoreAnOlderGeneration() {
            limit(12);
            pool("a", 2, 3);

            QuotaDecider.Result stale = pool("a", 1, 10);

            assertThat(stale.changed()).isEmpty();
            assertThat(current("a").requestedNodes()).isEqualTo(3);
        }

        @Test
        void shouldStartANewIncarnationFromNothing() {
            limit(12);
            pool("a", 8);
            pool("b", 6);

            QuotaDecider.Result recreated = when(new PoolChanged(Pools.demand("a", "uid-a2", 1, 2)));

            assertThat(decision(recreated, "a").pool().uid()).isEqualTo("uid-a2");
            assertThat(current("a").admittedNodes()).isEqualTo(2);
            assertThat(current("b").admittedNodes())
                    .as("the old incarnation's nodes no longer count")
                    .isEqualTo(6);
            assertThat(recreated.gone())
                    .singleElement()
                    .satisfies(ref -> assertThat(ref.uid()).isEqualTo("uid-a"));
        }

        @Test
        void shouldIgnoreTheGoneOfAnotherIncarnation() {
            limit(12);
            when(new PoolChanged(Pools.demand("a", "uid-a2", 1, 2)));

            QuotaDecider.Result result = when(new PoolGone("demo/a", "uid-a1"));

            assertThat(result.gone()).isEmpty();
            assertThat(result.ledger().pools()).containsKey("demo/a");
        }
    }

    @Nested
    class Repeats {

        @Test
        void shouldPublishNothingWhenNothingChanged() {
            limit(12);
            pool("a", 4);

            QuotaDecider.Result again = pool("a", 4);
            QuotaDecider.Result sameLimit = limit(12);

            assertThat(again.changed()).isEmpty();
            assertThat(again.events()).isEmpty();
            assertThat(sameLimit.changed()).isEmpty();
        }

        @Test
        void shouldNotRepublishAPoolWhenOnlyAnotherPoolChanged() {
            limit(20);
            pool("a", 4);
            pool("b", 3);

            QuotaDecider.Result grown = pool("c", 5);

            assertThat(grown.changed()).extracting(q -> q.pool().pool()).containsExactly("c");
            assertThat(decision(grown, "c").usage()).isEqualTo(12);
        }

        @Test
        void shouldWarnOncePerGenerationAndLimitWhileAPoolWaits() {
            limit(10);
            pool("a", 8);
            pool("b", 4);

            QuotaDecider.Result usageChanged = pool("a", 2, 7);

            assertThat(decision(usageChanged, "b").message())
                    .as("the numbers are current")
                    .contains("would use 11 of 10");
            assertThat(usageChanged.events()).isEmpty();
            assertThat(limit(9).events())
                    .singleElement()
                    .satisfies(e -> assertThat(e.id()).contains("/limit-9/"));
        }

        @Test
        void shouldRemoveAnEmptyLedger() {
            limit(3);
            pool("a", 1);
            when(new PoolGone("demo/a", "uid-a"));

            assertThat(when(new LimitRemoved()).ledger().isEmpty()).isTrue();
        }
    }
}
