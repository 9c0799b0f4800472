package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.messaging.NodeDeletions;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Deleting one node of a pool, {@code DELETE .../nodepools/{name}/nodes/{node}}: 202 with the node as it is now, since
 * the node leaves once drained (Kubernetes answers a graceful deletion the same way); the node is replaced.
 */
@Path("/apis/compute.coreweave.com/v1alpha1/nodepools")
@Produces(MediaType.APPLICATION_JSON)
public class NodeDeletionResource {

    @Inject
    CurrentCaller caller;

    @Inject
    PoolReads reads;

    @Inject
    NodeDeletions deletions;

    @DELETE
    @Path("/{name}/nodes/{node}")
    public Response delete(@PathParam("name") String name, @PathParam("node") String node) {
        PoolKey key = new PoolKey(caller.org(), name);
        var pool = reads.wholeView(key).orElseThrow(() -> ApiException.notFound(NodePool.KIND, name));
        return Response.accepted(deletions.request(key, pool, node)).build();
    }
}
