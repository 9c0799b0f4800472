package com.coreweave.nodepool.api;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Stands in for the quota-service's HTTP API at the address the test profile gives it (the real one answers in the
 * system tests): it echoes which path was asked, any Authorization header it got (the caller's credential must never
 * come along) and the org of the peer assertion it got instead, and refuses org other the way the quota-service does.
 */
final class QuotaServiceStub implements AutoCloseable {

    private final HttpServer server;

    QuotaServiceStub(URI address) {
        try {
            server = HttpServer.create(new InetSocketAddress(address.getHost(), address.getPort()), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            String token = exchange.getRequestHeaders().getFirst("Authorization");
            String assertion = exchange.getRequestHeaders().getFirst("X-Nodepool-Peer-Assertion");
            String claims = assertion == null
                    ? ""
                    : new String(
                            Base64.getUrlDecoder().decode(assertion.substring(0, assertion.indexOf('.'))),
                            StandardCharsets.UTF_8);
            boolean refused = claims.contains("\"org\":\"other\"");
            byte[] body = (refused
                            ? "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Forbidden\",\"code\":403}"
                            : "{\"kind\":\"QuotaList\",\"asked\":\""
                                    + exchange.getRequestURI().getPath() + "\",\"authorization\":\"" + token
                                    + "\",\"asserted\":" + (claims.isEmpty() ? "null" : claims) + "}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(refused ? 403 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
