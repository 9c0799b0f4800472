package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.kit.reads.InteractiveQueries;
import com.coreweave.nodepool.kit.reads.InternalReads;
import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.domain.QuotaRecord;
import com.coreweave.nodepool.quota.streams.StoreNames;
import com.coreweave.nodepool.quota.streams.StoredQuotas;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.fasterxml.jackson.core.type.TypeReference;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads quota ledgers from the Streams state store by interactive queries. Ledgers are spread over the instances by
 * quota key, so a listing takes this instance's share from its store and asks every other instance for its share (with
 * the caller's token, so tenancy holds there too).
 */
@ApplicationScoped
public class QuotaReads {

    private static final TypeReference<List<QuotaLedger>> LEDGERS = new TypeReference<>() {};

    @Inject
    InteractiveQueries queries;

    /** Every ledger of {@code org}, from all instances. */
    public List<QuotaLedger> ofOrg(String org) {
        List<QuotaLedger> all = new ArrayList<>(localOfOrg(org));
        all.addAll(queries.fromOthers(
                StoreNames.QUOTA_LEDGERS,
                InternalReads.path(QuotaPeerReads.QUOTAS, org),
                LEDGERS,
                ledger -> ledger.key().toString()));
        return all;
    }

    /** Every ledger the caller may read (every org's for an operator), from all instances. */
    public List<QuotaLedger> all() {
        List<QuotaLedger> all = new ArrayList<>(localAll());
        all.addAll(queries.fromOthers(
                StoreNames.QUOTA_LEDGERS,
                InternalReads.path(QuotaPeerReads.QUOTAS),
                LEDGERS,
                ledger -> ledger.key().toString()));
        return all;
    }

    public List<QuotaLedger> localOfOrg(String org) {
        return local(PoolKey.orgPrefix(org));
    }

    public List<QuotaLedger> localAll() {
        return local(null);
    }

    private List<QuotaLedger> local(String prefix) {
        return queries.readLocal(
                StoreNames.QUOTA_LEDGERS,
                (ReadOnlyKeyValueStore<String, QuotaRecord> store) -> StoredQuotas.ledgers(store, prefix));
    }
}
