package com.coreweave.nodepool.provisioner.rest;

import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.reads.InteractiveQueries;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.kit.rest.RequestBody;
import com.coreweave.nodepool.provisioner.domain.controllers.configuration.ReleaseRequest;
import com.coreweave.nodepool.provisioner.domain.model.NodeReleases;
import com.coreweave.nodepool.provisioner.streams.StoreNames;
import com.coreweave.nodepool.schema.events.NodeReleasePublished;
import com.coreweave.nodepool.schema.topics.Topics;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.util.List;

/**
 * Upstream node image releases: operators publish a new release of a train (admin token); pools following it adopt it
 * at once ({@code Always}) or show it as their pending configuration. Anyone can read the current releases.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class NodeReleaseResource {

    @Inject
    CurrentCaller caller;

    @Inject
    RecordPublisher publisher;

    @Inject
    InteractiveQueries queries;

    @Inject
    Clock clock;

    @POST
    @Path("admin/node-releases")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response publish(String body) {
        caller.admin();
        // No body is one more problem of the release (a 422 listing what it lacks), not a 400.
        JsonNode tree =
                body == null || body.isBlank() ? MissingNode.getInstance() : RequestBody.tree(body, "a node release");
        List<StatusCause> causes = ReleaseRequest.problems(tree);
        if (!causes.isEmpty()) {
            throw ApiException.invalid(
                    "NodeRelease",
                    tree != null && tree.path("version").isTextual()
                            ? tree.path("version").asText()
                            : null,
                    causes);
        }
        NodeReleasePublished release = ReleaseRequest.of(tree, clock.instant());
        publisher.publishToEveryPartition(Topics.NODE_RELEASE_PUBLISHED.name(), release.releaseTrain(), release);
        return Response.accepted(release).build();
    }

    /** The current release of each train (every instance holds all of them). */
    @GET
    @Path("node-releases")
    public List<NodeReleasePublished> releases() {
        caller.get();
        return NodeReleases.TRAINS.stream()
                .map(train -> queries.<NodeReleasePublished>localGet(StoreNames.RELEASES, train)
                        .orElse(NodeReleases.INITIAL.of(train)))
                .toList();
    }
}
