package com.coreweave.nodepool.schema.events;

/**
 * The platform's verdict on a pool spec (the {@code Validated} condition): checks that need the instance-type catalogue
 * or cross-field rules, made asynchronously by the pool processor.
 */
public record Validation(String reason, String message) {

    public boolean valid() {
        return com.coreweave.nodepool.schema.resource.Conditions.Validated.VALID.equals(reason);
    }
}
