package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.QuotaKey;
import java.time.Instant;

/** The head record of one quota ledger: its key and the operator's limit (null: no quota set). */
public record QuotaHead(QuotaKey key, Integer limit, Instant limitSetAt) implements QuotaRecord {}
