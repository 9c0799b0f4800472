package com.coreweave.nodepool.api.dashboard;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.auth.PeerTarget;
import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads of another service's API on the caller's behalf: a peer assertion of the caller goes along (never the caller's
 * own credential, which a caller by client certificate does not even have), so that service decides what the caller may
 * see, and its answer (a body or a {@code Status}) comes back as it was given.
 */
@ApplicationScoped
public class Upstream {

    @Inject
    DashboardSettings settings;

    @Inject
    CurrentCaller caller;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** GET {@code path} on {@code service} at {@code base}; 503 when it cannot be reached in time. */
    public Response get(String service, URI base, String path) {
        URI uri = base.resolve(path);
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                .timeout(settings.upstreamTimeout())
                .header("Accept", MediaType.APPLICATION_JSON)
                .GET();
        builder.header(CurrentCaller.PEER_ASSERTION_HEADER, caller.peerAssertion(PeerTarget.get(service, uri)));
        HttpRequest request = builder.build();
        try {
            HttpResponse<byte[]> answer = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return Response.status(answer.statusCode())
                    .type(MediaType.APPLICATION_JSON)
                    .entity(answer.body())
                    .build();
        } catch (IOException e) {
            throw ApiException.unavailable(base + " did not answer " + path + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while asking " + base + path);
        }
    }
}
