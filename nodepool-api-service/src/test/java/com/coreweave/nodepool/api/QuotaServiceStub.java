package com.coreweave.nodepool.api;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Stands in for the quota-service's HTTP API (the real one answers in the system tests): it echoes which path was
 * asked with which token, and refuses one token the way the quota-service does. The capacity-service's address
 * points at a port where nothing listens.
 */
public class QuotaServiceStub implements QuarkusTestResourceLifecycleManager {

  private HttpServer server;

  @Override
  public Map<String, String> start() {
    try {
      server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    server.createContext("/", exchange -> {
      String token = exchange.getRequestHeaders().getFirst("Authorization");
      boolean refused = "Bearer other-token".equals(token);
      byte[] body = (refused
          ? "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Forbidden\",\"code\":403}"
          : "{\"kind\":\"QuotaList\",\"asked\":\"" + exchange.getRequestURI().getPath() + "\",\"token\":\""
              + token + "\"}").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(refused ? 403 : 200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    return Map.of(
        "nodepool.dashboard.quota-url", "http://localhost:" + server.getAddress().getPort(),
        "nodepool.dashboard.capacity-url", "http://localhost:1");
  }

  @Override
  public void stop() {
    server.stop(0);
  }
}
