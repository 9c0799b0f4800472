package com.coreweave.nodepool.kit.faults;

import java.time.Instant;

/**
 * A fault an operator armed: the point it fails, where, how many more times ({@code remaining}, null: until disarmed)
 * and until when ({@code expires}, null: no end), with who armed it and why.
 */
public record ArmedFault(
        String point,
        FaultScope scope,
        Integer remaining,
        Instant expires,
        String message,
        String armedBy,
        Instant armedAt) {

    /** The fault's name in the list and in the messages it causes: {@code <point>@<scope>}. */
    public String id() {
        return point + "@" + scope;
    }

    boolean expired(Instant now) {
        return expires != null && !now.isBefore(expires);
    }

    /** The same fault after it fired once; null when that was its last. */
    ArmedFault fired() {
        if (remaining == null) {
            return this;
        }
        return remaining <= 1 ? null : new ArmedFault(point, scope, remaining - 1, expires, message, armedBy, armedAt);
    }

    /** What the failure it causes says, so a reader of the condition or event knows it was injected. */
    String failure() {
        return "injected fault " + id() + " armed by " + armedBy + (message == null ? "" : ": " + message);
    }
}
