package com.coreweave.nodepool.api.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.events.RequestDecided.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A REST write waiting for the pool processor's answer: it gets the answer to its own request of its own pool, nothing
 * else, and leaves nothing behind however the wait ends. Answers are given from inside the publish, as the pool
 * processor of the same instance gives them, so no test depends on another thread's timing.
 */
class DecisionWaiterTest {

    private static final PoolKey ACME_A = new PoolKey("acme", "a");
    /** Long enough never to end a wait that is answered; a wait that is not answered ends after it. */
    private static final Duration ANSWERED = Duration.ofSeconds(30);

    private static final Duration UNANSWERED = Duration.ofMillis(20);

    private final DecisionWaiter waiter = new DecisionWaiter();

    @Test
    void shouldReturnTheAnswerToItsOwnRequestOfItsOwnPool() {
        // given
        RequestDecided created = decided("r1", Outcome.CREATED);
        // when
        RequestDecided answer = waiter.submit(ACME_A, "r1", () -> waiter.answer("acme/a", created), ANSWERED);
        // then
        assertThat(answer).isSameAs(created);
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldNotTakeTheAnswerToTheSameRequestIdOfAnotherOrgsPool() {
        // given two orgs that sent the same Idempotency-Key for a pool of the same name
        RequestDecided theirs = decided("r1", Outcome.REJECTED);
        // when
        RequestDecided answer = waiter.submit(ACME_A, "r1", () -> waiter.answer("globex/a", theirs), UNANSWERED);
        // then
        assertThat(answer).isNull();
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldNotTakeTheAnswerToAnotherRequestOfItsPool() {
        RequestDecided other = decided("r2", Outcome.UPDATED);

        RequestDecided answer = waiter.submit(ACME_A, "r1", () -> waiter.answer("acme/a", other), UNANSWERED);

        assertThat(answer).isNull();
    }

    @Test
    void shouldGiveUpWithNoAnswerAfterTheTimeoutAndForgetTheWait() {
        // when nobody answers
        RequestDecided answer = waiter.submit(ACME_A, "r1", () -> {}, UNANSWERED);
        // then
        assertThat(answer).isNull();
        assertThat(waiter.waiting()).isZero();
        // and an answer arriving late finds nobody and is dropped
        waiter.answer("acme/a", decided("r1", Outcome.CREATED));
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldWaitPastTheTimeoutWhileThePoolsPartitionMovesAndTakeTheNewOwnersAnswer() {
        // given a request whose partition is moving when the timeout passes; the new owner answers meanwhile
        RequestDecided created = decided("r1", Outcome.CREATED);
        AtomicInteger asked = new AtomicInteger();
        BooleanSupplier moving = () -> {
            asked.incrementAndGet();
            waiter.answer("acme/a", created);
            return true;
        };
        // when
        RequestDecided answer = waiter.submit(ACME_A, "r1", () -> {}, UNANSWERED, moving, ANSWERED);
        // then
        assertThat(answer).isSameAs(created);
        assertThat(asked).hasValue(1);
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldGiveUpAtTheTimeoutWhenThePoolsPartitionIsNotMoving() {
        AtomicInteger asked = new AtomicInteger();

        RequestDecided answer = waiter.submit(
                ACME_A,
                "r1",
                () -> {},
                UNANSWERED,
                () -> {
                    asked.incrementAndGet();
                    return false;
                },
                ANSWERED);

        assertThat(answer).isNull();
        assertThat(asked).hasValue(1);
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldGiveUpAfterTheMoveWaitWhenThePartitionNeverSettles() {
        Duration moveWait = Duration.ofMillis(300);
        long started = System.nanoTime();

        RequestDecided answer = waiter.submit(ACME_A, "r1", () -> {}, UNANSWERED, () -> true, moveWait);

        assertThat(answer).isNull();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(UNANSWERED.plus(moveWait));
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldLeaveNoWaiterBehindWhenThePublishFails() {
        // when
        assertThatThrownBy(() -> waiter.submit(
                        ACME_A,
                        "r1",
                        () -> {
                            throw new IllegalStateException("broker unavailable");
                        },
                        ANSWERED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("broker unavailable");
        // then
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldCountTheCallWaitingWhileItsRequestIsPublished() {
        AtomicReference<Integer> waitingDuringPublish = new AtomicReference<>();
        RequestDecided created = decided("r1", Outcome.CREATED);

        waiter.submit(
                ACME_A,
                "r1",
                () -> {
                    waitingDuringPublish.set(waiter.waiting());
                    waiter.answer("acme/a", created);
                },
                ANSWERED);

        assertThat(waitingDuringPublish).hasValue(1);
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldGiveTwoCallsForTheSameRequestTheSameAnswer() {
        // given a retry of the request made while the first call still waits
        RequestDecided created = decided("r1", Outcome.CREATED);
        AtomicReference<RequestDecided> retried = new AtomicReference<>();
        // when
        RequestDecided first = waiter.submit(
                ACME_A,
                "r1",
                () -> retried.set(waiter.submit(ACME_A, "r1", () -> waiter.answer("acme/a", created), ANSWERED)),
                ANSWERED);
        // then
        assertThat(first).isSameAs(created);
        assertThat(retried).hasValue(created);
        assertThat(waiter.waiting()).isZero();
    }

    @Test
    void shouldEndTheWaitWithNoAnswerWhenTheCallIsInterrupted() {
        try {
            RequestDecided answer =
                    waiter.submit(ACME_A, "r1", () -> Thread.currentThread().interrupt(), ANSWERED);

            assertThat(answer).isNull();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(waiter.waiting()).isZero();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void shouldNotBeReadyBeforeItFollowsTheDecisionsTopic() {
        assertThat(waiter.ready()).isFalse();
    }

    private static RequestDecided decided(String requestId, Outcome outcome) {
        return new RequestDecided(requestId, outcome, 200, null, null, Instant.parse("2025-06-09T14:48:54Z"));
    }
}
