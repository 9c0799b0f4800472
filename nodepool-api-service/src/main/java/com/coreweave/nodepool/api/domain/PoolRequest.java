package com.coreweave.nodepool.api.domain;

import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import java.time.Instant;

/**
 * One request to the pool processor, read and structurally checked: who asks what for which pool. {@code tenantOrg} is
 * the org whose own topic ({@code nodepool-requested.<org>}) the request was written to, null for the shared topic and
 * REST; {@code raw} is the record as received, kept so that a refused request reaches the dead-letter topic unchanged.
 */
public record PoolRequest(
        String id,
        String source,
        String tenantOrg,
        PoolKey key,
        Operation operation,
        NodePool manifest,
        Instant time,
        byte[] raw) {

    /** The CloudEvent source the REST API writes with; its callers get errors as HTTP answers, not dead letters. */
    public static final String REST_SOURCE = "nodepool-api-service/rest";

    /**
     * Whether the API's own REST layer wrote the request: its source, on the shared topic, which only the services and
     * operators may write; an org's topic may not claim it (RequestReader refuses that).
     */
    public boolean fromRest() {
        return REST_SOURCE.equals(source) && tenantOrg == null;
    }
}
