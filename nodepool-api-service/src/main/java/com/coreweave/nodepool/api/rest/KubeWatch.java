package com.coreweave.nodepool.api.rest;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.smallrye.mutiny.Multi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One Kubernetes watch of a resource: {@code ADDED} for every selected object that exists when it starts (unless the
 * client already listed them and watches from that list's version, whose later changes the feed replays), then
 * {@code ADDED} / {@code MODIFIED} / {@code DELETED} as the live feed reports changes, and BOOKMARKs when asked. An
 * object that stops matching the selectors is {@code DELETED} from the watch, one that starts matching is
 * {@code ADDED}. Changes that arrive while the current objects are read are held back and replayed after them, so none
 * is lost or reordered before its object. Events are serialized as they happen into the watch's bounded
 * {@link WatchStream}; the watch remembers only the names it has shown.
 */
final class KubeWatch<T> {

    /**
     * A change the live feed reports: an object's new state, or, when {@code gone}, its last state (null when the feed
     * reports only that it is gone, as a tombstone does).
     */
    record Change<T>(String name, T object, boolean gone) {

        Change(String name, T object) {
            this(name, object, object == null);
        }
    }

    /** How a watch shows its objects: as themselves, or as rows of a Table. */
    interface Renderer<T> {
        KubernetesResource render(T object);
    }

    private final Function<T, String> name;
    private final Predicate<T> selected;
    private final Renderer<T> renderer;
    /** What a DELETED event shows of an object the feed reports only the name of (a tombstone). */
    private final Function<String, T> gone;

    private final WatchStream out;
    private final Set<String> known = new HashSet<>();
    private List<Change<T>> heldBack = new ArrayList<>();

    KubeWatch(
            Function<T, String> name,
            Predicate<T> selected,
            Renderer<T> renderer,
            Function<String, T> gone,
            WatchStream out) {
        this.name = name;
        this.selected = selected;
        this.renderer = renderer;
        this.gone = gone;
        this.out = out;
    }

    /**
     * Begins the stream once the watch is subscribed to the feed (whose changes are held back until now): with
     * {@code announce}, every current object is sent as ADDED; without, they are only remembered, since the client
     * listed them already. Ends after {@code timeout}.
     */
    Multi<byte[]> events(List<T> current, boolean announce, Duration timeout) {
        begin(current, announce);
        return Multi.createFrom().publisher(out).select().first(timeout);
    }

    /** A BOOKMARK: the version the client may resume from, every change before it having been sent. */
    synchronized void bookmark(KubernetesResource marker) {
        out.send(WatchLimits.line(new WatchEvent(marker, "BOOKMARK")));
    }

    private synchronized void begin(List<T> initial, boolean announce) {
        for (T object : initial) {
            if (selected.test(object)) {
                known.add(name.apply(object));
                if (announce) {
                    send("ADDED", object);
                }
            }
        }
        List<Change<T>> replay = heldBack;
        heldBack = null;
        replay.forEach(this::emit);
    }

    synchronized void onChange(Change<T> change) {
        if (heldBack != null) {
            heldBack.add(change);
        } else {
            emit(change);
        }
    }

    private void emit(Change<T> change) {
        boolean shown = known.contains(change.name());
        if (change.gone() || !selected.test(change.object())) {
            if (shown) {
                known.remove(change.name());
                send("DELETED", change.object() == null ? gone.apply(change.name()) : change.object());
            }
            return;
        }
        known.add(change.name());
        send(shown ? "MODIFIED" : "ADDED", change.object());
    }

    private void send(String type, T object) {
        out.send(WatchLimits.line(new WatchEvent(renderer.render(object), type)));
    }
}
