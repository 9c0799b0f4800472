package com.coreweave.nodepool.api.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ListVersionTest {

    @Test
    void shouldRoundTripThePositionsOfEveryPartition() {
        ListVersion version = ListVersion.of(List.of(12L, 0L, 7L));

        assertThat(version.toString()).isEqualTo("L12.0.7");
        assertThat(ListVersion.parse("L12.0.7", 3)).isEqualTo(version);
    }

    @ParameterizedTest(name = "\"{0}\" is no list version of 3 partitions")
    @ValueSource(strings = {"857370", "L1.2", "L1.2.x", "L1.-2.3", "", "L"})
    void shouldNotTakeAnObjectVersionOrAnythingElseForAListVersion(String text) {
        assertThat(ListVersion.parse(text, 3)).isNull();
    }
}
