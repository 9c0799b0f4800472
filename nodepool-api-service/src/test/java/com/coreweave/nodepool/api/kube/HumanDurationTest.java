package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HumanDurationTest {

    @ParameterizedTest(name = "{0}s is {1}")
    @CsvSource({
        "0,0s",
        "45,45s",
        "119,119s",
        "125,2m5s",
        "600,10m",
        "3600,60m",
        "10800,3h",
        "11100,3h5m",
        "86400,24h",
        "180000,2d2h",
        "864000,10d",
        "63072000,2y"
    })
    void shouldPrintAgesAsKubectlDoes(long seconds, String printed) {
        assertThat(HumanDuration.of(Duration.ofSeconds(seconds))).isEqualTo(printed);
    }
}
