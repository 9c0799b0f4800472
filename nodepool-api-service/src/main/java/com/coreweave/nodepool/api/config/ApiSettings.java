package com.coreweave.nodepool.api.config;

import com.coreweave.nodepool.api.domain.PoolCountQuota;
import com.coreweave.nodepool.api.domain.PoolStorageQuota;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Map;

/** The api-service's own settings. */
@ConfigMapping(prefix = "nodepool.api")
public interface ApiSettings {

    /** The zone a pool lands in when its spec has no {@code region}. */
    @WithName("default-zone")
    @WithDefault("US-EAST-04A")
    String defaultZone();

    /** How long a REST write waits for the pool processor's decision before answering 504. */
    @WithName("request-timeout")
    @WithDefault("15s")
    Duration requestTimeout();

    /**
     * How much longer a REST write still unanswered after the request timeout waits while its pool's partition moves to
     * another instance (a rebalance, or an owner that is gone): the new owner answers it instead of a 504.
     */
    @WithName("move-wait")
    @WithDefault("10s")
    Duration moveWait();

    /** How long a request id (CloudEvent id or Idempotency-Key) is remembered, so a repeat changes nothing. */
    @WithName("request-id-retention")
    @WithDefault("24h")
    Duration requestIdRetention();

    /**
     * How long a deleted pool's Events stay listed ({@code kubectl get events}), as the API server's
     * {@code --event-ttl} keeps Events after their object is gone.
     */
    @WithName("event-retention")
    @WithDefault("1h")
    Duration eventRetention();

    /** How often a watch that allows bookmarks gets one (the version it may resume from). */
    @WithName("watch-bookmark-interval")
    @WithDefault("30s")
    Duration watchBookmarkInterval();

    /** Pools an org may have (Kubernetes' {@code count/<resource>} quota); one more create is 403. */
    @WithName("pool-count-quota")
    @WithDefault("1000")
    int poolCountLimit();

    /** An operator's own pool count quota for some orgs: {@code nodepool.api.pool-count-quota-per-org.<org>=N}. */
    @WithName("pool-count-quota-per-org")
    Map<String, Integer> poolCountLimitPerOrg();

    default PoolCountQuota poolCountQuota() {
        return new PoolCountQuota(poolCountLimit(), poolCountLimitPerOrg());
    }

    /**
     * Bytes an org's pools may take as stored, each rounded up to 4 KiB ({@link PoolStorageQuota}); a write past it is
     * 403. At the 256 KiB object bound this is 64 pools of maximum size, or 4,096 small ones.
     */
    @WithName("pool-storage-quota")
    @WithDefault("16777216")
    long poolStorageLimit();

    /** An operator's own storage quota for some orgs: {@code nodepool.api.pool-storage-quota-per-org.<org>=bytes}. */
    @WithName("pool-storage-quota-per-org")
    Map<String, Long> poolStorageLimitPerOrg();

    default PoolStorageQuota poolStorageQuota() {
        return new PoolStorageQuota(poolStorageLimit(), poolStorageLimitPerOrg());
    }

    /** How often pools that are not (yet) valid are validated again, e.g. once the catalogue has arrived. */
    @WithName("revalidate-interval")
    @WithDefault("5s")
    Duration revalidateInterval();
}
