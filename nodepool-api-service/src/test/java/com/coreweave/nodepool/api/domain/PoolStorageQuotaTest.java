package com.coreweave.nodepool.api.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolStorageQuotaTest {

    private final PoolStorageQuota quota = new PoolStorageQuota(16 * 4096, Map.of("big", 100 * 4096L));

    @Test
    void aPoolCountsItsSizeInWholeBlocks() {
        assertThat(PoolStorageQuota.blocks(0)).isZero();
        assertThat(PoolStorageQuota.blocks(1)).isEqualTo(4096);
        assertThat(PoolStorageQuota.blocks(4096)).isEqualTo(4096);
        assertThat(PoolStorageQuota.blocks(4097)).isEqualTo(8192);
        assertThat(PoolStorageQuota.blocks(240_000)).isEqualTo(59 * 4096);
    }

    @Test
    void anOrgMayFillItsQuotaExactlyAndNotPassIt() {
        assertThat(quota.refusal("demo", "p", 14 * 4096, 0, 2 * 4096)).isNull();
        var refused = quota.refusal("demo", "p", 15 * 4096, 0, 2 * 4096);
        assertThat(refused.getCode()).isEqualTo(403);
        assertThat(refused.getReason()).isEqualTo("Forbidden");
        assertThat(refused.getMessage())
                .isEqualTo("nodepools.compute.coreweave.com \"p\" is forbidden: exceeded quota: "
                        + "storage/nodepools.compute.coreweave.com, requested: 8192, used: 61440, limited: 65536");
    }

    @Test
    void anUpdateCountsOnlyWhatItAddsAndAShrinkingOneIsAlwaysTaken() {
        // 16 blocks used, the pool grows from 2 to 3: one block more than the quota.
        assertThat(quota.refusal("demo", "p", 16 * 4096, 2 * 4096, 3 * 4096)).isNotNull();
        // An org already over its quota (its pools written before it) may still shrink or keep a pool's size.
        assertThat(quota.refusal("demo", "p", 40 * 4096, 3 * 4096, 3 * 4096)).isNull();
        assertThat(quota.refusal("demo", "p", 40 * 4096, 3 * 4096, 1 * 4096)).isNull();
    }

    @Test
    void anOperatorsLimitForOneOrgReplacesTheDefault() {
        assertThat(quota.limit("big")).isEqualTo(100 * 4096L);
        assertThat(quota.refusal("big", "p", 90 * 4096, 0, 10 * 4096)).isNull();
        assertThat(quota.refusal("big", "p", 91 * 4096, 0, 10 * 4096)).isNotNull();
    }
}
