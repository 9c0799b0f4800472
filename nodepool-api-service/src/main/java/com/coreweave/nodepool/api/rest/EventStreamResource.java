package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.messaging.LiveFeed;
import io.fabric8.kubernetes.api.model.Event;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.BackPressureFailure;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jboss.resteasy.reactive.RestStreamElementType;

/**
 * The pools' events as Server-Sent Events for dashboards, filterable like {@code kubectl events --types=Warning
 * --watch}, through the {@link LiveFeed}; only the events of the pools the caller may read.
 */
@Path("/")
public class EventStreamResource {

    /** Events an SSE stream of a slow reader may hold. */
    private static final int SSE_BUFFER = 1000;

    @Inject
    Tenancy tenancy;

    @Inject
    LiveFeed feed;

    @Inject
    WatchLimits limits;

    /**
     * The pools' events as Server-Sent Events for dashboards, filterable like {@code kubectl events --types=Warning
     * --watch}. At most {@value #SSE_BUFFER} events wait for a slow reader; past that the stream ends and the browser's
     * EventSource connects again.
     */
    @GET
    @Path("/apis/compute.coreweave.com/v1alpha1/watch/events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<Event> events(
            @QueryParam("types") String types,
            @QueryParam("reason") String reason,
            @QueryParam("nodePool") String nodePool) {
        Set<String> wanted = types == null || types.isBlank()
                ? Set.of()
                : Arrays.stream(types.split(",")).map(String::trim).collect(Collectors.toSet());
        Predicate<LiveFeed.EventChange> filter =
                change -> (wanted.isEmpty() || wanted.contains(change.event().getType()))
                        && (reason == null || reason.equals(change.event().getReason()))
                        && (nodePool == null || nodePool.equals(change.key().pool()));
        String org = tenancy.readScope();
        AtomicReference<Runnable> end = new AtomicReference<>(() -> {});
        Runnable release = limits.admit(() -> end.get().run());
        return Multi.createFrom()
                .<Event>emitter(emitter -> {
                    end.set(emitter::complete);
                    Runnable stop = feed.watch(LiveFeed.Stream.EVENTS, org, null, change -> {
                        if (filter.test((LiveFeed.EventChange) change)) {
                            emitter.emit(((LiveFeed.EventChange) change).event());
                        }
                    });
                    emitter.onTermination(() -> {
                        stop.run();
                        release.run();
                    });
                })
                .onOverflow()
                .buffer(SSE_BUFFER)
                .onFailure(BackPressureFailure.class)
                .recoverWithCompletion()
                .select()
                .first(limits.timeout(null));
    }
}
