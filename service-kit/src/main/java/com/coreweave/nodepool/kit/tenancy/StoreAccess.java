package com.coreweave.nodepool.kit.tenancy;

import java.util.Locale;

/**
 * Who may read a state store through the API, declared once per store in the service's configuration
 * ({@code nodepool.store-access.<store>=by-org|operators|everyone}). A store nobody declared is read by nobody, so a
 * new store cannot be exposed by forgetting to say whose it is.
 */
public enum StoreAccess {
    /** Keys start with {@code <org>/}: an org reads its own keys, an operator every key. */
    BY_ORG,
    /** Every org's data under keys that name no org (a zone's capacity ledger): operators only. */
    OPERATORS,
    /** No tenant's data (the instance-type catalogue, node releases): anyone with a valid token. */
    EVERYONE;

    /** The value of a {@code nodepool.store-access} setting. */
    public static StoreAccess parse(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "by-org" -> BY_ORG;
            case "operators" -> OPERATORS;
            case "everyone" -> EVERYONE;
            default ->
                throw new IllegalArgumentException(
                        "nodepool.store-access must be by-org, operators or everyone, not \"" + value + "\"");
        };
    }
}
