package com.coreweave.nodepool.api.rest;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.operators.multi.processors.UnicastProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One Kubernetes watch of a resource: {@code ADDED} for every selected object that exists when it starts (unless
 * the client already listed them and watches from that list's version), then {@code ADDED} / {@code MODIFIED} /
 * {@code DELETED} as the live feed reports changes. An object that stops matching the selectors is
 * {@code DELETED} from the watch, one that starts matching is {@code ADDED}. Changes that arrive while the current
 * objects are read are held back and replayed after them, so none is lost or reordered before its object.
 */
final class KubeWatch<T> {

  /** A change the live feed reports: an object's new state, or null when it is gone. */
  record Change<T>(String name, T object) {
  }

  /** How a watch shows its objects: as themselves, or as rows of a Table. */
  interface Renderer<T> {
    KubernetesResource render(T object);
  }

  private final Function<T, String> name;
  private final Predicate<T> selected;
  private final Renderer<T> renderer;
  private final UnicastProcessor<WatchEvent> out = UnicastProcessor.create();
  private final Map<String, T> known = new HashMap<>();
  private List<Change<T>> heldBack = new ArrayList<>();

  private KubeWatch(Function<T, String> name, Predicate<T> selected, Renderer<T> renderer) {
    this.name = name;
    this.selected = selected;
    this.renderer = renderer;
  }

  /**
   * Starts watching: subscribes to the feed first, then reads the current objects, then streams. With
   * {@code announce} false the current objects are only remembered (the client listed them already).
   */
  static <T> Multi<WatchEvent> start(Function<Consumer<Change<T>>, Runnable> subscribe, Supplier<List<T>> current,
                                     Function<T, String> name, Predicate<T> selected, Renderer<T> renderer,
                                     boolean announce, Duration timeout) {
    KubeWatch<T> watch = new KubeWatch<>(name, selected, renderer);
    Runnable stop = subscribe.apply(watch::onChange);
    try {
      watch.begin(current.get(), announce);
    } catch (RuntimeException e) {
      stop.run();
      throw e;
    }
    Multi<WatchEvent> events = watch.out.onTermination().invoke(stop).onCancellation().invoke(stop);
    return timeout == null ? events : events.select().first(timeout);
  }

  private synchronized void begin(List<T> initial, boolean announce) {
    for (T object : initial) {
      if (selected.test(object)) {
        known.put(name.apply(object), object);
        if (announce) {
          send("ADDED", object);
        }
      }
    }
    List<Change<T>> replay = heldBack;
    heldBack = null;
    replay.forEach(this::emit);
  }

  private synchronized void onChange(Change<T> change) {
    if (heldBack != null) {
      heldBack.add(change);
    } else {
      emit(change);
    }
  }

  private void emit(Change<T> change) {
    T previous = known.get(change.name());
    if (change.object() == null || !selected.test(change.object())) {
      if (previous != null) {
        known.remove(change.name());
        send("DELETED", change.object() == null ? previous : change.object());
      }
      return;
    }
    known.put(change.name(), change.object());
    send(previous == null ? "ADDED" : "MODIFIED", change.object());
  }

  private void send(String type, T object) {
    out.onNext(new WatchEvent(renderer.render(object), type));
  }
}
