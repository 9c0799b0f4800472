package com.coreweave.nodepool.kit.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.schema.resource.Statuses;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A flood of refusals costs the trail one event per caller and reason, then one summary per interval. */
class RefusalTallyTest {

    static final Instant T0 = Instant.parse("2026-05-01T12:00:00Z");
    static final String POOLS = AuditEventsTest.POOLS;

    private final RefusalTally tally = new RefusalTally(Duration.ofSeconds(10));

    static AuditEvent refused(int code) {
        return AuditEventsTest.http(null, "POST", POOLS, code);
    }

    @Test
    void theFirstRefusalOfACallerForAReasonIsRecordedWholeAndTheRestAreSummarizedOnce() {
        assertThat(tally.admit("anonymous@10.0.0.9", refused(401), T0)).isTrue();
        for (int i = 1; i < 10_000; i++) {
            assertThat(tally.admit("anonymous@10.0.0.9", refused(401), T0.plusMillis(i / 2)))
                    .isFalse();
        }
        assertThat(tally.due(T0.plusSeconds(9), "s"))
                .as("the interval has not passed")
                .isEmpty();

        List<AuditEvent> summaries = tally.due(T0.plusSeconds(10), "s");

        assertThat(summaries).singleElement().satisfies(summary -> {
            assertThat(summary.annotations()).containsEntry(RefusalTally.SUMMARIZED, "9999");
            assertThat(summary.responseStatus().code()).isEqualTo(401);
            assertThat(summary.responseStatus().message()).startsWith("9999 more refused like this one");
            assertThat(summary.user().username()).isEqualTo("system:anonymous");
            assertThat(AuditBounds.size(summary)).isLessThanOrEqualTo(4096);
        });
        assertThat(tally.idle()).isTrue();
        assertThat(tally.admit("anonymous@10.0.0.9", refused(401), T0.plusSeconds(11)))
                .as("a new interval records the caller's first refusal whole again")
                .isTrue();
    }

    @Test
    void eachCallerAndReasonIsCountedApartAndOneRefusalAloneNeedsNoSummary() {
        tally.admit("a@demo", refused(403), T0);
        tally.admit("a@demo", refused(403), T0);
        tally.admit("a@demo", refused(422), T0);
        tally.admit("b@other", refused(403), T0);

        assertThat(tally.due(T0.plusSeconds(10), "s"))
                .singleElement()
                .satisfies(s -> assertThat(s.annotations()).containsEntry(RefusalTally.SUMMARIZED, "1"));
    }

    @Test
    void callersBeyondTheBoundAreCountedTogetherSoTheTallyStaysSmall() {
        for (int i = 0; i < RefusalTally.MAX_CALLERS + 500; i++) {
            tally.admit("anonymous@10.1." + i, refused(401), T0);
        }

        List<AuditEvent> summaries = tally.due(T0.plusSeconds(10), "s");

        assertThat(summaries).singleElement().satisfies(s -> {
            assertThat(s.user().username()).isEqualTo(RefusalTally.OTHERS);
            assertThat(s.annotations()).containsEntry(RefusalTally.SUMMARIZED, "500");
        });
    }

    @Test
    void anEventWithHugeClientChosenFieldsIsCutToItsBound() {
        AuditEvent huge = AuditEvents.of(new AuditEvents.HttpWrite(
                "id",
                new Caller("u".repeat(5_000), "demo", Set.of()),
                "POST",
                POOLS + "?" + "q=".repeat(20_000),
                422,
                Statuses.failure(422, "Invalid", "é".repeat(40_000), null),
                null,
                Collections.nCopies(500, "10.0.0." + "9".repeat(100)),
                "agent/".repeat(10_000),
                T0,
                T0,
                "nodepool-api-service"));

        AuditEvent cut = AuditBounds.bounded(huge);

        assertThat(AuditBounds.size(huge)).isGreaterThan(40_000);
        assertThat(AuditBounds.size(cut)).isLessThanOrEqualTo(4096);
        assertThat(cut.responseStatus().code()).isEqualTo(422);
        assertThat(cut.sourceIPs().getLast())
                .as("the connection's peer, last, is kept")
                .isEqualTo(huge.sourceIPs().getLast().substring(0, AuditBounds.IP_CHARS - 1) + "…");
    }
}
