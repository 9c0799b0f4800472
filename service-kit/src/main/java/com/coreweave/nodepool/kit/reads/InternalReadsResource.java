package com.coreweave.nodepool.kit.reads;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * What one instance answers another during an interactive query, in every service: the read a {@link PeerReads} bean
 * names, from this instance's own store only, never forwarded again.
 *
 * <ul>
 *   <li>A peer assertion of the caller travels with the forwarded read; each read checks it as the public reads do.
 *   <li>A read no bean names, or a path of another shape, is the 404 of a path no resource matches.
 * </ul>
 */
@Path(InternalReads.ROOT)
@Produces(MediaType.APPLICATION_JSON)
public class InternalReadsResource {

    @Inject
    Instance<PeerReads> services;

    private volatile Map<String, PeerReads.PeerRead> reads;

    @GET
    @Path("/{read}")
    @Operation(hidden = true)
    public Response answer(@PathParam("read") String read, @Context UriInfo uri) {
        return answer(read, List.of(), uri);
    }

    @GET
    @Path("/{read}/{segments: .+}")
    @Operation(hidden = true)
    public Response answer(
            @PathParam("read") String read, @PathParam("segments") String segments, @Context UriInfo uri) {
        // The decoded segments, as JAX-RS gives them: an encoded '/' inside an org or a name stays in its segment.
        List<String> decoded =
                uri.getPathSegments().stream().map(s -> s.getPath()).toList();
        int first = decoded.indexOf(InternalReads.ROOT.substring(1)) + 2;
        return answer(read, decoded.subList(first, decoded.size()), uri);
    }

    private Response answer(String read, List<String> segments, UriInfo uri) {
        PeerReads.PeerRead found = reads().get(read);
        if (found == null) {
            throw new NotFoundException();
        }
        // A GenericEntity answer keeps its declared type, so a map of polymorphic values is written with their type
        // ids.
        return Response.ok(found.answer(new PeerRequest(segments, uri.getQueryParameters())))
                .build();
    }

    private Map<String, PeerReads.PeerRead> reads() {
        if (reads == null) {
            Map<String, PeerReads.PeerRead> all = new HashMap<>();
            services.forEach(service -> service.reads().forEach((name, read) -> {
                if (all.putIfAbsent(name, read) != null) {
                    throw new IllegalStateException("two beans answer the internal read " + name);
                }
            }));
            reads = Map.copyOf(all);
        }
        return reads;
    }
}
