package com.coreweave.nodepool.quota.rest;

import com.coreweave.nodepool.quota.domain.QuotaLedger;
import com.coreweave.nodepool.quota.domain.QuotaUsage;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Comparator;
import java.util.List;

/** The answer of a quota listing: one item per quota key, sorted by org, zone and instance type. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"kind", "org", "items"})
public record QuotaList(String kind, String org, List<QuotaUsage> items) {

    static QuotaList of(String org, List<QuotaLedger> ledgers) {
        return new QuotaList(
                "QuotaList",
                org,
                ledgers.stream()
                        .map(QuotaUsage::of)
                        .sorted(Comparator.comparing(QuotaUsage::org)
                                .thenComparing(QuotaUsage::zone)
                                .thenComparing(QuotaUsage::instanceType))
                        .toList());
    }
}
