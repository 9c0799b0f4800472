package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.ViewPart;
import com.coreweave.nodepool.kit.reads.PeerReads;
import com.coreweave.nodepool.kit.reads.PeerRequest;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.GenericEntity;
import java.util.Map;
import java.util.SortedMap;

/**
 * What one instance answers another during an interactive query (service-kit's {@code InternalReadsResource}): only its
 * own store. The caller's token travels with the forwarded read, so tenancy holds here too.
 *
 * <ul>
 *   <li>{@code pool-views}, {@code pool-events}, {@code pool-published}, {@code pool-parts} {@code /<org>/<name>}: one
 *       pool's, 404 for an org the caller may not read.
 *   <li>{@code pool-nodes}, {@code pool-events}, {@code pool-published} {@code ?org=} (the page with {@code after},
 *       {@code limit}): this instance's share of the orgs the caller may read.
 * </ul>
 */
@ApplicationScoped
public class PoolPeerReads implements PeerReads {

    @Inject
    PoolReads reads;

    @Inject
    Tenancy tenancy;

    @Override
    public Map<String, PeerRead> reads() {
        return Map.of(
                "pool-views", request -> reads.localView(own(request)).orElseThrow(() -> notFound(request)),
                // Typed: each part is written with its type id, which a bare map's values would lose.
                "pool-parts",
                        request -> new GenericEntity<SortedMap<String, ViewPart>>(reads.localParts(own(request))) {},
                "pool-nodes",
                        request -> reads.localNodes(
                                tenancy.readable(request.expect(0).param("org"))),
                "pool-published",
                        request -> request.has(0)
                                ? reads.localPublishedPage(
                                        tenancy.readable(request.param("org")),
                                        request.param("after"),
                                        request.intParam("limit"))
                                : reads.localPublished(own(request)).orElseThrow(() -> notFound(request)),
                "pool-events",
                        request -> request.has(0)
                                ? reads.localEvents(tenancy.readable(request.param("org")))
                                : reads.localEvents(own(request)).orElseThrow(() -> notFound(request)));
    }

    /** The pool {@code /<org>/<name>} names, when the caller may read its org. */
    private PoolKey own(PeerRequest request) {
        String org = request.expect(2).segment(0);
        String name = request.segment(1);
        if (!tenancy.mayRead(org)) {
            throw ApiException.notFound("NodePool", name);
        }
        return new PoolKey(org, name);
    }

    private static ApiException notFound(PeerRequest request) {
        return ApiException.notFound("NodePool", request.segment(1));
    }
}
