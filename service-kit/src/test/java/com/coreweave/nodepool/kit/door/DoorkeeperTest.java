package com.coreweave.nodepool.kit.door;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.auth.AuthenticationFailure;
import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.door.Admission.Need;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class DoorkeeperTest {

    private static final Caller DEMO = new Caller("demo", false);
    private static final Caller OPERATOR = new Caller("platform", true);
    private static final Supplier<Caller> BAD = () -> {
        throw new AuthenticationFailure("unknown bearer token");
    };

    private final InFlightBytes bytes = new InFlightBytes(10, 100);
    private final RequestsPerAddress perAddress = new RequestsPerAddress(2);
    private final Doorkeeper keeper = new Doorkeeper(new FailedAuthentications(1, 2, 100), perAddress, bytes);

    @Test
    void anUnknownCallerIsRefused401AndHoldsNothing() {
        Doorkeeper.Verdict verdict = keeper.admit(Need.CALLER, "10.0.0.9", BAD, 3_000_000, 0);
        assertThat(verdict.code()).isEqualTo(401);
        assertThat(verdict.message()).isEqualTo("unknown bearer token");
        assertThat(perAddress.addresses()).isZero();
        assertThat(bytes.held()).isZero();
    }

    @Test
    void failuresPastTheAddressBudgetAre429WithAWait() {
        keeper.admit(Need.CALLER, "10.0.0.9", BAD, 0, 0);
        keeper.admit(Need.CALLER, "10.0.0.9", BAD, 0, 0);
        Doorkeeper.Verdict third = keeper.admit(Need.CALLER, "10.0.0.9", BAD, 0, 0);
        assertThat(third.code()).isEqualTo(429);
        assertThat(third.retryAfter()).isEqualTo(1);
        assertThat(keeper.admit(Need.CALLER, "10.0.0.9", () -> DEMO, 0, 0).admitted())
                .as("a valid credential from the same address still gets in")
                .isTrue();
    }

    @Test
    void anOpenPathNeverAsksForACredential() {
        AtomicInteger asked = new AtomicInteger();
        Doorkeeper.Verdict verdict = keeper.admit(
                Need.NOTHING,
                "10.0.0.9",
                () -> {
                    asked.incrementAndGet();
                    return DEMO;
                },
                0,
                0);
        assertThat(verdict.admitted()).isTrue();
        assertThat(asked).hasValue(0);
    }

    @Test
    void metricsNeedAnOperator() {
        assertThat(keeper.admit(Need.OPERATOR, "a", () -> DEMO, 0, 0).code()).isEqualTo(403);
        assertThat(keeper.admit(Need.OPERATOR, "a", () -> OPERATOR, 0, 0).admitted())
                .isTrue();
    }

    @Test
    void anOrgsBodiesInFlightAreBoundedAndGivenBackWhenAnswered() {
        Doorkeeper.Verdict first = keeper.admit(Need.CALLER, "a", () -> DEMO, 8, 0);
        assertThat(first.admitted()).isTrue();
        Doorkeeper.Verdict second = keeper.admit(Need.CALLER, "b", () -> DEMO, 8, 0);
        assertThat(second.code()).isEqualTo(429);
        assertThat(second.message()).contains("org demo");
        assertThat(keeper.admit(Need.CALLER, "b", () -> OPERATOR, 8, 0).admitted())
                .as("another org's bodies have their own share")
                .isTrue();
        keeper.done("a", first);
        assertThat(keeper.admit(Need.CALLER, "b", () -> DEMO, 8, 0).admitted()).isTrue();
    }

    @Test
    void oneAddressHasAtMostItsRequestsInFlight() {
        Doorkeeper.Verdict one = keeper.admit(Need.CALLER, "a", () -> DEMO, 0, 0);
        keeper.admit(Need.CALLER, "a", () -> DEMO, 0, 0);
        Doorkeeper.Verdict third = keeper.admit(Need.CALLER, "a", () -> DEMO, 0, 0);
        assertThat(third.code()).isEqualTo(429);
        assertThat(third.message()).contains("requests in flight from a");
        assertThat(keeper.admit(Need.CALLER, "b", () -> DEMO, 0, 0).admitted()).isTrue();
        keeper.done("a", one);
        assertThat(keeper.admit(Need.CALLER, "a", () -> DEMO, 0, 0).admitted()).isTrue();
    }
}
