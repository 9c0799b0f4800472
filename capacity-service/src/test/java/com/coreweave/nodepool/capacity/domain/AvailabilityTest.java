package com.coreweave.nodepool.capacity.domain;

import static com.coreweave.nodepool.capacity.domain.Inputs.demand;
import static com.coreweave.nodepool.capacity.domain.Inputs.pool;
import static com.coreweave.nodepool.capacity.domain.Inputs.size;
import static com.coreweave.nodepool.capacity.domain.Inputs.spot;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AvailabilityTest {

    @Test
    void countsFreeMachinesForBothClassesWhenNobodyWaits() {
        Ledger ledger = new LedgerRun().with(size(6), demand(spot("s"), 2)).state;

        Availability zone = Availability.of("US-EAST-04A", ledger, 4, true);

        assertThat(zone.free()).isEqualTo(4);
        assertThat(zone.fitsDefault()).isTrue();
        assertThat(zone.fitsSpot()).isTrue();
        assertThat(zone.spotReclaimable()).isEqualTo(2);
    }

    @Test
    void leavesSpotNothingOfCapacityWaitingPoolsAreOwed() {
        Ledger ledger = new LedgerRun().with(size(2), demand(pool("a"), 2), demand(spot("s"), 1)).state;

        Availability zone = Availability.of("US-EAST-04A", ledger, 1, true);

        assertThat(zone.free()).isZero();
        assertThat(zone.spotDemandWaiting()).isEqualTo(1);
        assertThat(zone.fitsDefault()).isFalse();
        assertThat(zone.fitsSpot()).isFalse();
    }

    @Test
    void neverOffersSpotOnSuperchipTypes() {
        Ledger ledger = new LedgerRun().with(size(8)).state;

        Availability zone = Availability.of("US-EAST-04A", ledger, 2, false);

        assertThat(zone.fitsDefault()).isTrue();
        assertThat(zone.availableForSpot()).isZero();
        assertThat(zone.fitsSpot()).isFalse();
    }

    @Test
    void ranksZonesWhereTheNodesFitFirstThenByWhatIsFree() {
        Availability small = Availability.of("US-WEST-04A", new LedgerRun().with(size(2)).state, 3, true);
        Availability large = Availability.of("US-CENTRAL-07A", new LedgerRun().with(size(9)).state, 3, true);
        Availability larger = Availability.of("US-EAST-04A", new LedgerRun().with(size(12)).state, 3, true);
        Availability empty = Availability.of("EU-SOUTH-04A", null, 3, true);

        assertThat(Availability.ranked(List.of(small, empty, large, larger)))
                .extracting(Availability::zone)
                .containsExactly("US-EAST-04A", "US-CENTRAL-07A", "US-WEST-04A", "EU-SOUTH-04A");
    }
}
