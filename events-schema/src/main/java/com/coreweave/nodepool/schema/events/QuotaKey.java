package com.coreweave.nodepool.schema.events;

/** The key quota decisions are serialized on: {@code <org>/<zone>/<instanceType>}. */
public record QuotaKey(String org, String zone, String instanceType) {

    public static QuotaKey parse(String key) {
        String[] parts = key.split("/", -1);
        if (parts.length != 3 || parts[0].isBlank() || parts[1].isBlank() || parts[2].isBlank()) {
            throw new IllegalArgumentException("key '" + key + "' is not of the form <org>/<zone>/<instanceType>");
        }
        return new QuotaKey(parts[0], parts[1], parts[2]);
    }

    @Override
    public String toString() {
        return org + "/" + zone + "/" + instanceType;
    }
}
