package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.kube.ListVersion;
import com.coreweave.nodepool.api.messaging.LiveFeed;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.resource.Statuses;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jboss.resteasy.reactive.RestMulti;

/**
 * Opens the watches of {@link WatchResource}: within the caller's limits ({@link WatchLimits}), subscribed to the
 * {@link LiveFeed}, the current objects first, bookmarks when asked for, streamed as Kubernetes streams watch events.
 */
@ApplicationScoped
class FeedWatches {

    @Inject
    Tenancy tenancy;

    @Inject
    LiveFeed feed;

    @Inject
    Listings listings;

    @Inject
    ApiSettings settings;

    @Inject
    WatchLimits limits;

    /**
     * Opens a watch within the caller's limits ({@link WatchLimits}), subscribes it to the feed (from the client's list
     * version when it names one, else from now), reads the current objects, and streams; a version the feed's history
     * no longer reaches is 410 Gone, as Kubernetes answers, and the client lists again.
     */
    <T> RestMulti<byte[]> start(
            LiveFeed.Stream stream,
            ListOptions options,
            Function<T, String> name,
            Predicate<T> selected,
            KubeWatch.Renderer<T> renderer,
            Function<String, T> gone,
            Function<Object, KubeWatch.Change<T>> change,
            Supplier<List<T>> current,
            Function<String, KubernetesResource> bookmark) {
        String version = options.resourceVersion;
        boolean fromNow = version == null || version.isEmpty() || version.equals("0");
        ListVersion from = fromNow ? null : ListVersion.parse(version, feed.partitionCount(stream));
        if (!fromNow && from == null) {
            throw gone(version, "it is not the resourceVersion of a list or a bookmark; list again");
        }
        Runnable[] stop = {() -> {}};
        WatchStream out = limits.open(() -> stop[0].run());
        KubeWatch<T> watch = new KubeWatch<>(name, selected, renderer, gone, out);
        Runnable unsubscribe = feed.watch(stream, tenancy.readScope(), from, c -> watch.onChange(change.apply(c)));
        if (unsubscribe == null) {
            out.complete();
            throw gone(version, "the changes after it are no longer kept; list again");
        }
        stop[0] = unsubscribe;
        Multi<byte[]> events;
        try {
            events = watch.events(current.get(), fromNow, limits.timeout(options.timeoutSeconds));
        } catch (RuntimeException e) {
            out.complete();
            unsubscribe.run();
            throw e;
        }
        if (options.allowWatchBookmarks && !options.table()) {
            var ticker = Multi.createFrom()
                    .ticks()
                    .every(settings.watchBookmarkInterval())
                    .subscribe()
                    .with(t -> feed.between(() ->
                            watch.bookmark(bookmark.apply(feed.version(stream).toString()))));
            events = events.onTermination().invoke(ticker::cancel);
        }
        return stream(events);
    }

    private static ApiException gone(String version, String why) {
        return new ApiException(
                Statuses.failure(410, "Expired", "too old resource version: " + version + " (" + why + ")", null));
    }

    /** Objects as themselves, or as Table rows: the column definitions go with the first event only. */
    <T> KubeWatch.Renderer<T> renderer(
            Lister<T> lister,
            ListOptions options,
            Function<T, io.fabric8.kubernetes.api.model.KubernetesResource> plain) {
        if (!options.table()) {
            return plain::apply;
        }
        boolean[] first = {true};
        return object -> {
            var table = listings.table(lister, List.of(object), options, null, null);
            if (first[0]) {
                first[0] = false;
                return table;
            }
            return table.withoutColumns();
        };
    }

    /** A chunked application/json stream of watch events, one after another, as Kubernetes clients read it. */
    private static RestMulti<byte[]> stream(Multi<byte[]> events) {
        return RestMulti.fromMultiData(events)
                .encodeAsJsonArray(false)
                .status(200)
                .header("Content-Type", MediaType.APPLICATION_JSON)
                .build();
    }
}
