package com.coreweave.nodepool.systemtest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One pool of org {@code demo} in a zone × instance type no other test uses (its own quota and fleet), with the reads a
 * system test asks of it.
 */
final class OnePool {

    final Api demo = SystemStack.api("demo-token");
    final String name;

    private OnePool(String name) {
        this.name = name;
    }

    /** Gives org {@code demo} a quota and the zone a fleet of {@code machines} of the type, for this pool alone. */
    static OnePool in(String name, String zone, String type, int machines) {
        SystemStack.quota("demo", zone, type, machines);
        SystemStack.fleet(zone, type, machines);
        return new OnePool(name);
    }

    String path() {
        return Api.POOLS + "/" + name;
    }

    Api.Answer get() {
        return demo.get(path());
    }

    List<JsonNode> nodes() {
        List<JsonNode> nodes = new ArrayList<>();
        demo.get(path() + "/nodes").body().path("items").forEach(nodes::add);
        return nodes;
    }

    /** The pool's events of one reason, as {@code "<type>: <message>"}. */
    List<String> events(String reason) {
        List<String> events = new ArrayList<>();
        demo.get(path() + "/events").body().path("items").forEach(e -> {
            if (reason.equals(e.path("reason").asText())) {
                events.add(e.path("type").asText() + ": " + e.path("message").asText());
            }
        });
        return events;
    }
}
