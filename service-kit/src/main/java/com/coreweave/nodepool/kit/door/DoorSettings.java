package com.coreweave.nodepool.kit.door;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/**
 * The front door's bounds (docs/security.md, "Bounds"): what an instance spends on a request before and after its
 * caller is known.
 */
@ConfigMapping(prefix = "nodepool.front-door")
public interface DoorSettings {

    /** Failed authentications an address may make a second on average; past the burst its failures get 429. */
    @WithName("failed-authentications.per-second")
    @WithDefault("5")
    double failuresPerSecond();

    @WithName("failed-authentications.burst")
    @WithDefault("50")
    double failureBurst();

    /** Client addresses whose failures are counted at once; the least recent are forgotten first. */
    @WithName("failed-authentications.addresses")
    @WithDefault("10000")
    int failureAddresses();

    /** Requests one client address may have in flight (admitted, not yet answered) at once; past it 429. */
    @WithName("requests-per-address")
    @WithDefault("256")
    int requestsPerAddress();

    /** Request-body bytes one org may have in flight on an instance; past it 429. */
    @WithName("in-flight-bytes-per-org")
    @WithDefault("12582912")
    long inFlightBytesPerOrg();

    /** Request-body bytes every org together may have in flight on an instance; past it 429. */
    @WithName("in-flight-bytes")
    @WithDefault("50331648")
    long inFlightBytes();
}
