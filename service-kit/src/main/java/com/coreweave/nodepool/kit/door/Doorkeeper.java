package com.coreweave.nodepool.kit.door;

import com.coreweave.nodepool.kit.auth.AuthenticationFailure;
import com.coreweave.nodepool.kit.auth.Caller;
import java.util.function.Supplier;

/**
 * Decides, from a request's headers alone, whether it is let in: its address within its requests in flight, its
 * credential valid (or the path open), an operator where the path needs one, and its body within its org's and the
 * instance's in-flight bytes. What it holds for an admitted request is given back by {@link #done}.
 */
public final class Doorkeeper {

    /** What the door says: admitted (code 0) with the caller and the bytes held, or a refusal as a Status says it. */
    public record Verdict(int code, String reason, String message, int retryAfter, Caller caller, long bytes) {

        static Verdict admit(Caller caller, long bytes) {
            return new Verdict(0, null, null, 0, caller, bytes);
        }

        static Verdict refuse(int code, String reason, String message, int retryAfter, Caller caller) {
            return new Verdict(code, reason, message, retryAfter, caller, 0);
        }

        public boolean admitted() {
            return code == 0;
        }
    }

    private final FailedAuthentications failures;
    private final RequestsPerAddress perAddress;
    private final InFlightBytes inFlight;

    public Doorkeeper(FailedAuthentications failures, RequestsPerAddress perAddress, InFlightBytes inFlight) {
        this.failures = failures;
        this.perAddress = perAddress;
        this.inFlight = inFlight;
    }

    /**
     * The verdict on a request to a path that needs {@code need}, from {@code address}, whose credential
     * {@code authenticate} checks (throwing {@link AuthenticationFailure}), with a body of {@code bodyBytes} (0: none).
     * An admitted request that needed a caller holds a place of its address and its bytes until {@link #done}.
     */
    public Verdict admit(
            Admission.Need need, String address, Supplier<Caller> authenticate, long bodyBytes, long nowNanos) {
        if (need == Admission.Need.NOTHING) {
            return Verdict.admit(null, 0);
        }
        if (!perAddress.start(address)) {
            return Verdict.refuse(
                    429,
                    "TooManyRequests",
                    "more than " + perAddress.max() + " requests in flight from " + address,
                    1,
                    null);
        }
        Caller caller;
        try {
            caller = authenticate.get();
        } catch (AuthenticationFailure e) {
            perAddress.end(address);
            int wait = failures.failed(address, nowNanos);
            if (wait > 0) {
                return Verdict.refuse(
                        429,
                        "TooManyRequests",
                        "too many failed authentications from " + address + "; retry after " + wait + "s",
                        wait,
                        null);
            }
            return Verdict.refuse(401, "Unauthorized", e.getMessage(), 0, null);
        }
        if (need == Admission.Need.OPERATOR && !caller.operator()) {
            perAddress.end(address);
            return Verdict.refuse(403, "Forbidden", "this endpoint needs the operator role", 0, caller);
        }
        if (bodyBytes > 0 && !inFlight.reserve(caller.org(), bodyBytes)) {
            perAddress.end(address);
            return Verdict.refuse(
                    429,
                    "TooManyRequests",
                    "request bodies of org " + caller.org() + " in flight on this instance would pass "
                            + inFlight.perOrg() + " bytes (or every org's together their limit); retry after 1s",
                    1,
                    caller);
        }
        return Verdict.admit(caller, bodyBytes);
    }

    /** Gives back what an admitted request of {@code address} held, once it is answered (or its connection closed). */
    public void done(String address, Verdict admitted) {
        if (admitted.caller() == null) {
            return;
        }
        perAddress.end(address);
        if (admitted.bytes() > 0) {
            inFlight.release(admitted.caller().org(), admitted.bytes());
        }
    }
}
