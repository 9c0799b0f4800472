package com.coreweave.nodepool.kit.auth;

import java.net.URI;

/**
 * What a peer assertion is made for: the service that is asked, the method and the path (without the query). An
 * assertion is accepted only for the request it names, so one seen in a log or a proxy opens nothing else.
 */
public record PeerTarget(String service, String method, String path) {

    /** A GET of {@code uri} on {@code service}. */
    public static PeerTarget get(String service, URI uri) {
        return new PeerTarget(service, "GET", uri.getRawPath());
    }
}
