package com.coreweave.nodepool.api.rest;

import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Kubernetes clients watch with {@code ?watch=true} on a list or item path; JAX-RS cannot pick a method by a query
 * parameter, so such requests are routed before matching to the {@code /watch/} paths Kubernetes also serves
 * ({@link WatchResource}).
 */
public class WatchRouting {

    private static final String POOLS = "/apis/compute.coreweave.com/v1alpha1/";
    private static final Pattern POOL_PATHS = Pattern.compile(Pattern.quote(POOLS) + "(nodepools(/[^/]+)?)/?");
    private static final Pattern POOL_EVENTS = Pattern.compile(Pattern.quote(POOLS) + "nodepools/([^/]+)/events/?");
    private static final Pattern CORE = Pattern.compile("/api/v1/((namespaces/[^/]+/)?events|nodes)/?");

    @ServerRequestFilter(preMatching = true)
    public void route(ContainerRequestContext request) {
        if (!"GET".equals(request.getMethod())) {
            return;
        }
        String watch = request.getUriInfo().getQueryParameters().getFirst("watch");
        if (!"true".equalsIgnoreCase(watch) && !"1".equals(watch)) {
            return;
        }
        String path = request.getUriInfo().getPath();
        var uri = request.getUriInfo().getRequestUriBuilder();
        Matcher events = POOL_EVENTS.matcher(path);
        Matcher pools = POOL_PATHS.matcher(path);
        Matcher core = CORE.matcher(path);
        if (events.matches()) {
            request.setRequestUri(uri.replacePath(POOLS + "watch/events")
                    .queryParam("nodePool", events.group(1))
                    .build());
        } else if (pools.matches()) {
            request.setRequestUri(
                    uri.replacePath(POOLS + "watch/" + pools.group(1)).build());
        } else if (core.matches()) {
            request.setRequestUri(
                    uri.replacePath("/api/v1/watch/" + core.group(1)).build());
        }
    }
}
