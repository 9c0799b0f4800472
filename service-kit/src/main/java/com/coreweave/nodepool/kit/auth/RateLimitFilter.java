package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.StatusMappers;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Holds every credential to a request rate ({@code nodepool.rate-limit.per-second}, {@code .burst}), as the Kubernetes
 * API server's priority and fairness keeps one client from taking the API from the others: past it, 429 with
 * {@code Retry-After}. Runs after authentication, so only known credentials have a bucket.
 */
public class RateLimitFilter {

    @Inject
    CurrentCaller caller;

    @ConfigProperty(name = "nodepool.rate-limit.per-second", defaultValue = "100")
    double perSecond;

    @ConfigProperty(name = "nodepool.rate-limit.burst", defaultValue = "200")
    double burst;

    private final Map<String, RequestRate> rates = new ConcurrentHashMap<>();

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION + 1)
    public Optional<Response> limit() {
        String credential = caller.credential();
        int wait = rates.computeIfAbsent(credential, c -> new RequestRate(perSecond, burst, System.nanoTime()))
                .take(System.nanoTime());
        if (wait == 0) {
            return Optional.empty();
        }
        return Optional.of(StatusMappers.respond(ApiException.tooManyRequests(
                        "more than " + (int) perSecond + " requests a second with this token; retry after " + wait
                                + "s",
                        wait)
                .status()));
    }
}
