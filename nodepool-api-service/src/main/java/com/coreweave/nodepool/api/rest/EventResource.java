package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.PoolEvents;
import com.coreweave.nodepool.api.kube.CoreEvents;
import com.coreweave.nodepool.api.kube.EventTable;
import com.coreweave.nodepool.api.kube.TableConvertor;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.EventListBuilder;
import jakarta.inject.Inject;
import jakarta.ws.rs.BeanParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The core {@code v1} Events of the caller's pools and their nodes: what {@code kubectl describe} (with its field
 * selectors), {@code kubectl get events} and {@code kubectl events} read. They live in the {@code default} namespace,
 * as events about cluster-scoped objects do.
 */
@Path("/")
@Produces(MediaType.APPLICATION_JSON)
public class EventResource implements CoreLister<Event> {

    private static final TableConvertor<Event> TABLE = new EventTable();

    @Inject
    Tenancy tenancy;

    @Inject
    PoolReads reads;

    @Inject
    Listings listings;

    @Inject
    LiveFeed feed;

    @GET
    @Path("/api/v1/events")
    public Object list(@BeanParam ListOptions options) {
        return listings.list(this, options, feed.version(LiveFeed.Stream.EVENTS).toString());
    }

    @GET
    @Path("/api/v1/namespaces/{namespace}/events")
    public Object list(@PathParam("namespace") String namespace, @BeanParam ListOptions options) {
        String version = feed.version(LiveFeed.Stream.EVENTS).toString();
        return listings.list(this, options.inNamespace(namespace), version);
    }

    @GET
    @Path("/api/v1/namespaces/{namespace}/events/{name}")
    public Object get(
            @PathParam("namespace") String namespace, @PathParam("name") String name, @BeanParam ListOptions options) {
        Event event = objects(options.inNamespace(namespace)).stream()
                .filter(e -> e.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new ApiException(Statuses.failure(
                        404,
                        "NotFound",
                        "events \"" + name + "\" not found",
                        Statuses.details(name, null, "events", null))));
        return listings.one(this, event, options);
    }

    @Override
    public List<Event> objects(ListOptions options) {
        if (options.namespace != null && !options.namespace.equals(CoreEvents.NAMESPACE)) {
            return List.of();
        }
        List<Event> events = new ArrayList<>();
        for (PoolEvents pool : reads.events(tenancy.readScope()).values()) {
            pool.events().forEach(e -> events.add(CoreEvents.of(e)));
        }
        events.sort(Comparator.comparing((Event e) -> e.getLastTimestamp() == null ? "" : e.getLastTimestamp())
                .thenComparing(e -> e.getMetadata().getName()));
        return events;
    }

    @Override
    public Map<String, String> fields(Event event) {
        return CoreEvents.fields(event);
    }

    @Override
    public Set<String> selectableFields() {
        return CoreEvents.SELECTABLE;
    }

    @Override
    public EventList listOf(List<Event> items, String resourceVersion, String continueToken) {
        return new EventListBuilder()
                .withItems(items)
                .withMetadata(CoreLister.listMeta(resourceVersion, continueToken))
                .build();
    }

    @Override
    public boolean resumable(String version) {
        return feed.resumable(LiveFeed.Stream.EVENTS, version);
    }

    @Override
    public TableConvertor<Event> table() {
        return TABLE;
    }
}
