package com.coreweave.nodepool.api.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;

/** What watches may take from an instance of the api-service ({@code nodepool.api.watch.*}). */
@ConfigMapping(prefix = "nodepool.api.watch")
public interface WatchSettings {

    /** Watches one credential may hold open at once on an instance; one more is 429. */
    @WithName("per-caller")
    @WithDefault("32")
    int watchesPerCaller();

    /** Watches an instance serves at once, every caller together; one more is 429. */
    @WithName("total")
    @WithDefault("512")
    int watchesTotal();

    /** Events one watch may have waiting for its client; one more ends the watch with 410 Gone. */
    @WithName("buffer-events")
    @WithDefault("1000")
    int watchBufferEvents();

    /** Bytes of events one watch may have waiting for its client; more ends the watch with 410 Gone. */
    @WithName("buffer-bytes")
    @WithDefault("4194304")
    long watchBufferBytes();

    /** Bytes of events all watches of an instance together may have waiting; a watch that would pass it ends (410). */
    @WithName("buffers-total-bytes")
    @WithDefault("67108864")
    long watchBuffersTotalBytes();

    /**
     * Bytes of events the watches of one org together may have waiting on an instance, a share of
     * {@code buffers-total-bytes}: an org whose watches stall fills its own share and only its watches end (410).
     */
    @WithName("buffers-per-org-bytes")
    @WithDefault("16777216")
    long watchBuffersPerOrgBytes();

    /**
     * The longest a watch lasts (a client's {@code timeoutSeconds} is cut to it); one without a wish lasts between half
     * of it and all of it, at random, so that watches end (and clients re-list) spread out.
     */
    @WithName("max-timeout")
    @WithDefault("30m")
    Duration watchMaxTimeout();
}
