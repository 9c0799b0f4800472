package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.rest.StatusMappers;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.vertx.ext.web.RoutingContext;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Hands every API call the caller the front door admitted it with ({@link RequestCredentials}, checked from the headers
 * before any body byte was read): the one place {@link CurrentCaller} is set. A REST request the front door did not
 * admit (none should reach here) is a 401.
 */
public class BearerTokenFilter {

    @Inject
    CurrentCaller current;

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Optional<Response> authenticate(RoutingContext context) {
        if (context.get(RequestCredentials.CALLER) instanceof Caller caller) {
            current.set(caller);
            return Optional.empty();
        }
        return Optional.of(
                StatusMappers.respond(Statuses.failure(401, "Unauthorized", "missing or unknown credentials", null)));
    }
}
