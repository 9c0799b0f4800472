package com.coreweave.nodepool.api.rest;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.UriBuilder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Kubernetes clients watch with {@code ?watch=true} on the list or item path; JAX-RS cannot pick a method by a query
 * parameter, so such requests are routed to {@link WatchResource} before matching.
 */
public class WatchRouting {

  private static final String BASE = "/apis/compute.coreweave.com/v1alpha1/";
  private static final Pattern POOLS = Pattern.compile(Pattern.quote(BASE) + "nodepools(/[^/]+)?/?");
  private static final Pattern POOL_EVENTS = Pattern.compile(Pattern.quote(BASE) + "nodepools/([^/]+)/events/?");

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
    Matcher events = POOL_EVENTS.matcher(path);
    UriBuilder uri = request.getUriInfo().getRequestUriBuilder();
    if (events.matches()) {
      request.setRequestUri(uri.replacePath(BASE + "watch/events").queryParam("nodePool", events.group(1)).build());
    } else if (POOLS.matcher(path).matches()) {
      request.setRequestUri(uri.replacePath(path.replace(BASE + "nodepools", BASE + "watch/nodepools")).build());
    }
  }
}
