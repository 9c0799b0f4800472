package com.coreweave.nodepool.kit.faults;

/**
 * The body of {@code PUT /admin/faults/<point>}: the scope (zone, org, pool), how many times the fault fires
 * ({@code count}, none: until disarmed), for how long ({@code expiresAfterSeconds}, none: no end), and a note for the
 * failure's message.
 */
public record FaultRequest(
        String zone, String org, String pool, Integer count, Long expiresAfterSeconds, String message) {}
