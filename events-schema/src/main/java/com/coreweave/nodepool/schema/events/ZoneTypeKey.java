package com.coreweave.nodepool.schema.events;

/** The key capacity decisions are serialized on: {@code <zone>/<instanceType>} (one partition, one writer). */
public record ZoneTypeKey(String zone, String instanceType) {

    public static ZoneTypeKey parse(String key) {
        int slash = key.indexOf('/');
        if (slash <= 0 || slash != key.lastIndexOf('/') || slash == key.length() - 1) {
            throw new IllegalArgumentException("key '" + key + "' is not of the form <zone>/<instanceType>");
        }
        return new ZoneTypeKey(key.substring(0, slash), key.substring(slash + 1));
    }

    @Override
    public String toString() {
        return zone + "/" + instanceType;
    }
}
