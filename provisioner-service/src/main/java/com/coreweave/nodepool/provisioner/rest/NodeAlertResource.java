package com.coreweave.nodepool.provisioner.rest;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.FieldErrors;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodeAlert;
import com.coreweave.nodepool.schema.resource.Statuses;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.util.UUID;

/**
 * An operator raises or resolves a node alert by hand (admin token): the same CloudEvent monitoring publishes on
 * {@code node-alert-raised}, written there after the same checks. {@code specversion}, {@code id}, {@code source},
 * {@code time} and {@code datacontenttype} may be left out; {@code subject} ({@code <org>/<pool>}), {@code type} and
 * {@code data} are needed.
 */
@Path("/admin/node-alerts")
@Produces(MediaType.APPLICATION_JSON)
public class NodeAlertResource {

    static final String SOURCE = "provisioner-service/admin";

    @Inject
    CurrentCaller caller;

    @Inject
    RecordPublisher publisher;

    @Inject
    Clock clock;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response report(String body) {
        caller.admin();
        JsonNode tree = RequestBody.object(body, "a NodeAlertRaised or NodeAlertResolved CloudEvent object");
        ObjectNode event = ((ObjectNode) tree).deepCopy();
        event.putIfAbsent("specversion", event.textNode(CloudEvent.SPEC_VERSION));
        event.putIfAbsent("id", event.textNode(UUID.randomUUID().toString()));
        event.putIfAbsent("source", event.textNode(SOURCE));
        event.putIfAbsent("time", event.textNode(clock.instant().toString()));
        event.putIfAbsent("datacontenttype", event.textNode(CloudEvent.JSON));
        String key = event.path("subject").asText("");
        if (key.isBlank()) {
            throw FieldErrors.one(Statuses.REQUIRED, "the pool the node belongs to, as <org>/<pool>", "subject")
                    .refusal("NodeAlert", event.path("id").asText(null));
        }
        CloudEvent<NodeAlert> alert;
        try {
            alert = Topics.NODE_ALERT_RAISED.read(key, Json.bytes(event));
        } catch (Rejection rejection) {
            throw FieldErrors.one(Statuses.INVALID, rejection.reason(), null)
                    .refusal("NodeAlert", event.path("id").asText(null));
        }
        publisher.publish(Topics.NODE_ALERT_RAISED.name(), key, alert);
        return Response.accepted(alert).build();
    }
}
