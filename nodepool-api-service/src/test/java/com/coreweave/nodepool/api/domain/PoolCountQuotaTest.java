package com.coreweave.nodepool.api.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolCountQuotaTest {

    private final PoolCountQuota quota = new PoolCountQuota(3, Map.of("big", 10));

    @Test
    void anOrgMayCreateUpToItsLimitAndNoMore() {
        assertThat(quota.refusal("demo", "p", 2)).isNull();
        var refused = quota.refusal("demo", "p", 3);
        assertThat(refused.getCode()).isEqualTo(403);
        assertThat(refused.getReason()).isEqualTo("Forbidden");
        assertThat(refused.getMessage())
                .isEqualTo("nodepools.compute.coreweave.com \"p\" is forbidden: exceeded quota: "
                        + "count/nodepools.compute.coreweave.com, requested: 1, used: 3, limited: 3");
    }

    @Test
    void anOperatorsLimitForOneOrgReplacesTheDefault() {
        assertThat(quota.limit("big")).isEqualTo(10);
        assertThat(quota.refusal("big", "p", 9)).isNull();
        assertThat(quota.refusal("big", "p", 10)).isNotNull();
    }
}
