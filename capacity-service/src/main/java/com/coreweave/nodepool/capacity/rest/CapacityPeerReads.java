package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.domain.Availability;
import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.capacity.domain.LedgerSummary;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.reads.PeerReads;
import com.coreweave.nodepool.kit.reads.PeerRequest;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.events.ZoneTypeKey;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.NotFoundException;
import java.util.List;
import java.util.Map;

/**
 * What one instance answers another during an interactive query (service-kit's {@code InternalReadsResource}). Ledgers
 * name every org's pools, so they need the operator's token; availability counts are for anyone.
 */
@ApplicationScoped
public class CapacityPeerReads implements PeerReads {

    /** {@code /internal/ledgers[/<zone>/<instanceType>[/fleet-changes/<requestId>]]}. */
    static final String LEDGERS = "ledgers";

    static final String FLEET_CHANGES = "fleet-changes";
    /** {@code /internal/availability?instanceType=&nodes=}. */
    static final String AVAILABILITY = "availability";

    @Inject
    LedgerReads reads;

    @Inject
    CurrentCaller caller;

    @Inject
    Catalogue catalogue;

    @Override
    public Map<String, PeerRead> reads() {
        return Map.of(LEDGERS, this::ledgers, AVAILABILITY, this::availability);
    }

    private Object ledgers(PeerRequest request) {
        if (request.has(0)) {
            caller.admin();
            return reads.localLedgers().stream()
                    .map(l -> LedgerSummary.of(l, false))
                    .toList();
        }
        if (request.has(2)) {
            caller.admin();
            String zone = request.segment(0);
            String instanceType = request.segment(1);
            return reads.localLedger(new ZoneTypeKey(zone, instanceType))
                    .map(l -> LedgerSummary.of(l, true))
                    .orElseThrow(() -> ApiException.notFound("Ledger", zone + "/" + instanceType));
        }
        if (request.expect(4).segment(2).equals(FLEET_CHANGES)) {
            caller.admin();
            String requestId = request.segment(3);
            return reads.localApplied(new ZoneTypeKey(request.segment(0), request.segment(1)), requestId)
                    .orElseThrow(() -> ApiException.notFound("FleetChange", requestId));
        }
        throw new NotFoundException();
    }

    private List<Availability> availability(PeerRequest request) {
        request.expect(0);
        caller.get();
        String instanceType = request.param("instanceType");
        int nodes = request.intParam("nodes");
        InstanceType type =
                catalogue.find(instanceType).orElseThrow(() -> ApiException.notFound("InstanceType", instanceType));
        return reads.localAvailability(type, nodes);
    }
}
