package com.coreweave.nodepool.quota.domain;

import com.coreweave.nodepool.schema.events.QuotaKey;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Map;

/**
 * The head record of one quota ledger: its key and the operator's limit (null: no quota set). {@code legacy} holds
 * the pools of a ledger stored whole by an earlier version (one value per quota key), read back so that an upgrade
 * keeps every admission; its first change writes them out record by record.
 */
public record QuotaHead(QuotaKey key, Integer limit, Instant limitSetAt, @JsonIgnore Map<String, PoolEntry> legacy)
    implements QuotaRecord {

  @JsonCreator
  static QuotaHead read(@JsonProperty("key") QuotaKey key, @JsonProperty("limit") Integer limit,
                        @JsonProperty("limitSetAt") Instant limitSetAt,
                        @JsonProperty("pools") Map<String, PoolEntry> pools) {
    return new QuotaHead(key, limit, limitSetAt, pools);
  }
}
