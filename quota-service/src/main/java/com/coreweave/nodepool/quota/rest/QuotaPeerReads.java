package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.reads.PeerReads;
import com.coreweave.nodepool.kit.reads.PeerRequest;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;

/**
 * What one instance answers another during an interactive query (service-kit's {@code InternalReadsResource}). The
 * caller's token travels with the forwarded read: an org reads only its own ledgers, an operator reads all.
 */
@ApplicationScoped
public class QuotaPeerReads implements PeerReads {

    /** {@code /internal/quotas[/<org>]}. */
    static final String QUOTAS = "quotas";

    @Inject
    QuotaReads reads;

    @Inject
    CurrentCaller caller;

    @Override
    public Map<String, PeerRead> reads() {
        return Map.of(QUOTAS, this::quotas);
    }

    private List<QuotaLedger> quotas(PeerRequest request) {
        if (request.has(0)) {
            caller.admin();
            return reads.localAll();
        }
        String org = request.expect(1).segment(0);
        Caller who = caller.get();
        if (!who.admin() && !org.equals(who.org())) {
            throw ApiException.forbidden("an org reads only its own quotas");
        }
        return reads.localOfOrg(org);
    }
}
