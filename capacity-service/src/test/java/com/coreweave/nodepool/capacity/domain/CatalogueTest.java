package com.coreweave.nodepool.capacity.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.coreweave.nodepool.schema.events.InstanceType;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogueTest {

    final Catalogue catalogue = Catalogue.fromResource("instance-types.yaml");

    @Test
    void offersTheDemoFleetsTypesInTheDemoZone() {
        for (String type : List.of("gd-8xa100-i128", "gd-8xh100ib-i128", "gd-8xl40s-i128", "cd-gp-a192-genoa")) {
            assertThat(catalogue.refusal("US-EAST-04A", type)).as(type).isEmpty();
        }
        assertThat(catalogue.find("gd-8xa100-i128"))
                .get()
                .extracting(InstanceType::gpuModel, InstanceType::gpuCount, InstanceType::superchip)
                .containsExactly("A100", 8, false);
    }

    @Test
    void refusesATypeInAZoneWhereItIsNotOfferedAndAnUnknownType() {
        assertThat(catalogue.refusal("US-EAST-04A", "gd-8xh200ib-i128"))
                .get()
                .asString()
                .contains("not offered in zone US-EAST-04A");
        assertThat(catalogue.refusal("US-EAST-04A", "gd-nope")).get().asString().contains("not in the catalogue");
    }

    @Test
    void marksTheGraceSuperchipsAndKnowsCpuTypes() {
        assertThat(catalogue.all()).hasSizeGreaterThanOrEqualTo(12);
        assertThat(catalogue.all())
                .filteredOn(InstanceType::superchip)
                .extracting(InstanceType::gpuModel)
                .containsExactlyInAnyOrder("GH200", "GB200", "GB300");
        assertThat(catalogue.find("cd-gp-a192-genoa"))
                .get()
                .extracting(InstanceType::gpuCount)
                .isEqualTo(0);
    }

    @Test
    void refusesACatalogueListingATypeTwice() {
        InstanceType type = catalogue.find("gd-8xa100-i128").orElseThrow();
        assertThatThrownBy(() -> new Catalogue(List.of(type, type))).hasMessageContaining("listed twice");
    }
}
