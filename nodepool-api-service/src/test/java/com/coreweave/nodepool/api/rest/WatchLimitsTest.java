package com.coreweave.nodepool.api.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.coreweave.nodepool.api.config.WatchSettings;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** What watches may take from an instance: how many per token and in all, how long each lasts, their buffers. */
class WatchLimitsTest {

    private static final int PER_CALLER = 2;
    private static final int TOTAL = 3;
    private static final long BUFFERS_TOTAL = 1_000;
    private static final long PER_ORG = 400;
    private static final Duration MAX = Duration.ofMinutes(30);
    private static final Runnable NOTHING = () -> {};

    private final WatchLimits limits = new WatchLimits();
    private final Caller caller = new Caller();

    WatchLimitsTest() {
        limits.settings = new Settings();
        limits.caller = caller;
        caller.token = "Bearer alice";
    }

    // ---- how many -----------------------------------------------------------------------------------------------

    @Test
    void shouldAnswerTooManyRequestsWhenATokenHoldsAllItsWatches() {
        // given
        limits.admit(NOTHING);
        limits.admit(NOTHING);
        // when
        ApiException refused = catchThrowableOfType(ApiException.class, () -> limits.admit(NOTHING));
        // then
        assertThat(refused.status().getCode()).isEqualTo(429);
        assertThat(refused.status().getMessage()).contains("this token already holds 2 watches");
        assertThat(refused.status().getDetails().getRetryAfterSeconds()).isEqualTo(10);
        assertThat(limits.open()).isEqualTo(2);
    }

    @Test
    void shouldLetAnotherTokenWatchWhenOneHoldsAllItsWatches() {
        limits.admit(NOTHING);
        limits.admit(NOTHING);

        caller.token = "Bearer bob";
        limits.admit(NOTHING);

        assertThat(limits.open()).isEqualTo(3);
    }

    @Test
    void shouldAnswerTooManyRequestsWhenTheInstanceServesAllTheWatchesItMay() {
        // given
        limits.admit(NOTHING);
        limits.admit(NOTHING);
        caller.token = "Bearer bob";
        limits.admit(NOTHING);
        // when
        ApiException refused = catchThrowableOfType(ApiException.class, () -> limits.admit(NOTHING));
        // then
        assertThat(refused.status().getCode()).isEqualTo(429);
        assertThat(refused.status().getMessage()).contains("the API serves 3 watches at most");
        assertThat(limits.open()).isEqualTo(3);
    }

    @Test
    void shouldGiveThePlaceBackWhenAWatchEnds() {
        // given
        Runnable first = limits.admit(NOTHING);
        limits.admit(NOTHING);
        // when
        first.run();
        // then
        limits.admit(NOTHING);
        assertThat(limits.open()).isEqualTo(2);
    }

    @Test
    void shouldEndEveryOpenWatchWhenTheInstanceBeginsToStop() {
        // given
        AtomicInteger ended = new AtomicInteger();
        limits.admit(ended::incrementAndGet);
        Runnable closedEarlier = limits.admit(ended::incrementAndGet);
        caller.token = "Bearer bob";
        limits.admit(ended::incrementAndGet);
        closedEarlier.run();
        // when
        limits.endAll(null);
        // then
        assertThat(ended).hasValue(2);
    }

    @Test
    void shouldGiveThePlaceBackOnlyOnceHoweverOftenTheWatchEnds() {
        // given
        Runnable first = limits.admit(NOTHING);
        limits.admit(NOTHING);
        // when
        first.run();
        first.run();
        // then
        assertThat(limits.open()).isEqualTo(1);
        limits.admit(NOTHING);
        assertThat(catchThrowableOfType(ApiException.class, () -> limits.admit(NOTHING)))
                .isNotNull();
    }

    @Test
    void shouldNotCountARefusedWatchAgainstItsToken() {
        // given a full instance that refuses alice
        caller.token = "Bearer bob";
        Runnable bobs = limits.admit(NOTHING);
        Runnable bobsOther = limits.admit(NOTHING);
        caller.token = "Bearer carol";
        limits.admit(NOTHING);
        caller.token = "Bearer alice";
        assertThat(catchThrowableOfType(ApiException.class, () -> limits.admit(NOTHING)))
                .isNotNull();
        // when the instance has room again
        bobs.run();
        bobsOther.run();
        // then alice may still hold all the watches of a token
        limits.admit(NOTHING);
        limits.admit(NOTHING);
        assertThat(limits.open()).isEqualTo(3);
    }

    @Test
    void shouldGiveAWatchStreamsPlaceBackBeforeRunningItsEnd() {
        // given
        AtomicInteger ended = new AtomicInteger();
        AtomicInteger openWhenEnded = new AtomicInteger(-1);
        WatchStream stream = limits.open(() -> {
            ended.incrementAndGet();
            openWhenEnded.set(limits.open());
        });
        stream.subscribe(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(byte[] item) {}

            @Override
            public void onError(Throwable throwable) {}

            @Override
            public void onComplete() {}
        });
        assertThat(limits.open()).isEqualTo(1);
        // when
        stream.complete();
        // then
        assertThat(ended).hasValue(1);
        assertThat(openWhenEnded).hasValue(0);
    }

    @Test
    void shouldRefuseAWatchStreamBeyondTheTokensLimit() {
        limits.open(() -> {});
        limits.open(() -> {});

        ApiException refused = catchThrowableOfType(ApiException.class, () -> limits.open(() -> {}));

        assertThat(refused.status().getCode()).isEqualTo(429);
    }

    // ---- how long -----------------------------------------------------------------------------------------------

    @Test
    void shouldLastAsLongAsTheClientAsks() {
        assertThat(limits.timeout(60L)).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void shouldLastNoLongerThanTheServersMaximum() {
        assertThat(limits.timeout(MAX.toSeconds() + 1)).isEqualTo(MAX);
    }

    @RepeatedTest(20)
    void shouldLastBetweenHalfTheMaximumAndTheMaximumWithoutAWish() {
        assertThat(limits.timeout(null)).isBetween(MAX.dividedBy(2), MAX);
        assertThat(limits.timeout(0L)).isBetween(MAX.dividedBy(2), MAX);
    }

    // ---- buffers ------------------------------------------------------------------------------------------------

    @Test
    void shouldRefuseABufferThatWouldPassTheInstancesTotal() {
        assertThat(limits.reserve(600)).isTrue();
        assertThat(limits.reserve(500)).isFalse();
        assertThat(limits.reserve(400)).isTrue();
    }

    @Test
    void shouldLendReleasedBufferBytesAgain() {
        limits.reserve(BUFFERS_TOTAL);

        limits.release(300);

        assertThat(limits.reserve(300)).isTrue();
        assertThat(limits.reserve(1)).isFalse();
    }

    @Test
    void anOrgsWatchesBufferOnlyTheirShareAndAnotherOrgKeepsItsOwn() {
        WatchStream.Budget demo = limits.share();
        WatchStream.Budget demoAgain = limits.share();
        caller.org = "acme";
        WatchStream.Budget acme = limits.share();

        assertThat(demo.reserve(300)).isTrue();
        assertThat(demoAgain.reserve(200)).as("past demo's share of 400").isFalse();
        assertThat(acme.reserve(400)).as("acme's share is its own").isTrue();
        demo.release(300);
        assertThat(demoAgain.reserve(400)).isTrue();
    }

    @Test
    void anOrgsShareIsStillHeldToTheInstancesTotal() {
        WatchStream.Budget demo = limits.share();
        assertThat(limits.reserve(700)).isTrue();

        assertThat(demo.reserve(400)).isFalse();
        assertThat(demo.reserve(300)).isTrue();
        demo.release(300);
        assertThat(limits.reserve(300)).isTrue();
    }

    @Test
    void shouldEndAWatchThatFellBehindWithGoneSoTheClientListsAgain() {
        String line = new String(WatchLimits.OVERFLOWED, StandardCharsets.UTF_8);

        assertThat(line).endsWith("\n").contains("\"type\":\"ERROR\"").contains("\"code\":410");
        assertThat(line).contains("\"reason\":\"Expired\"");
    }

    /** The settings of a small instance. */
    private static final class Settings implements WatchSettings {
        @Override
        public int watchesPerCaller() {
            return PER_CALLER;
        }

        @Override
        public int watchesTotal() {
            return TOTAL;
        }

        @Override
        public int watchBufferEvents() {
            return 10;
        }

        @Override
        public long watchBufferBytes() {
            return 500;
        }

        @Override
        public long watchBuffersTotalBytes() {
            return BUFFERS_TOTAL;
        }

        @Override
        public long watchBuffersPerOrgBytes() {
            return PER_ORG;
        }

        @Override
        public Duration watchMaxTimeout() {
            return MAX;
        }
    }

    /** The caller of the request, by the token it sent. */
    private static final class Caller extends CurrentCaller {
        String token;
        String org = "demo";

        @Override
        public String credential() {
            return token;
        }

        @Override
        public com.coreweave.nodepool.kit.auth.Caller get() {
            return new com.coreweave.nodepool.kit.auth.Caller(token, org, Set.of());
        }
    }
}
