package com.coreweave.nodepool.kit.door;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.kit.door.Admission.Need;
import org.junit.jupiter.api.Test;

class AdmissionTest {

    @Test
    void onlyHealthProbesAndDashboardAssetsAreOpen() {
        assertThat(Admission.of("/q/health")).isEqualTo(Need.NOTHING);
        assertThat(Admission.of("/q/health/ready")).isEqualTo(Need.NOTHING);
        assertThat(Admission.of("/dashboard/")).isEqualTo(Need.NOTHING);
        assertThat(Admission.of("/dashboard/js/app.js")).isEqualTo(Need.NOTHING);
    }

    @Test
    void metricsOpenApiAndEveryOtherQuarkusEndpointNeedAnOperator() {
        assertThat(Admission.of("/q/metrics")).isEqualTo(Need.OPERATOR);
        assertThat(Admission.of("/q/openapi")).isEqualTo(Need.OPERATOR);
        assertThat(Admission.of("/q/healthz")).isEqualTo(Need.OPERATOR);
        assertThat(Admission.of("/q")).isEqualTo(Need.OPERATOR);
    }

    @Test
    void everyOtherPathNeedsACallerNewOnesIncluded() {
        assertThat(Admission.of("/apis/compute.coreweave.com/v1alpha1/nodepools"))
                .isEqualTo(Need.CALLER);
        assertThat(Admission.of("/dashboard/api/quotas")).isEqualTo(Need.CALLER);
        assertThat(Admission.of("/dashboardx")).isEqualTo(Need.CALLER);
        assertThat(Admission.of("/internal/pool-views/acme")).isEqualTo(Need.CALLER);
        assertThat(Admission.of("/an-endpoint-added-tomorrow")).isEqualTo(Need.CALLER);
        assertThat(Admission.of("/")).isEqualTo(Need.CALLER);
        assertThat(Admission.of("")).isEqualTo(Need.CALLER);
        assertThat(Admission.of(null)).isEqualTo(Need.CALLER);
    }
}
