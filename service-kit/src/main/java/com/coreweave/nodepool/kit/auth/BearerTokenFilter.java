package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.rest.StatusMappers;
import com.coreweave.nodepool.schema.resource.Statuses;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/** Authenticates every API call by its {@code Authorization: Bearer <token>} header (health and metrics are open). */
public class BearerTokenFilter {

    @Inject
    TokenRealm realm;

    @Inject
    CurrentCaller current;

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Optional<Response> authenticate(ContainerRequestContext request) {
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of(StatusMappers.respond(Statuses.failure(
                    401, "Unauthorized", "an Authorization: Bearer <token> header is required", null)));
        }
        Optional<Caller> caller = realm.callerOf(header.substring(7).trim());
        if (caller.isEmpty()) {
            return Optional.of(
                    StatusMappers.respond(Statuses.failure(401, "Unauthorized", "unknown bearer token", null)));
        }
        current.set(caller.get(), header);
        return Optional.empty();
    }
}
