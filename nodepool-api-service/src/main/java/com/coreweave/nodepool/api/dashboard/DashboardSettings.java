package com.coreweave.nodepool.api.dashboard;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.net.URI;
import java.time.Duration;

/** Where the dashboard's same-origin reads of the quotas and the fleet go. */
@ConfigMapping(prefix = "nodepool.dashboard")
public interface DashboardSettings {

    /** The quota-service's base URL ({@code /quotas}, {@code /admin/quotas}). */
    @WithName("quota-url")
    @WithDefault("http://localhost:8081")
    URI quotaUrl();

    /** The capacity-service's base URL ({@code /admin/fleet}). */
    @WithName("capacity-url")
    @WithDefault("http://localhost:8082")
    URI capacityUrl();

    /** How long the quota- or capacity-service may take to answer before the dashboard's read answers 503. */
    @WithName("upstream-timeout")
    @WithDefault("5s")
    Duration upstreamTimeout();
}
