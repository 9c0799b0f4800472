package com.coreweave.nodepool.schema.resource;

/** How configuration updates get staged onto a pool: Manual, OnSpecUpdate (default) or Always. */
public record NodeConfigurationUpdateStrategy(String type) {

    public static final String MANUAL = "Manual";
    public static final String ON_SPEC_UPDATE = "OnSpecUpdate";
    public static final String ALWAYS = "Always";
}
