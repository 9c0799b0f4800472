package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.kube.TableConvertor;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A resource whose objects can be listed, watched for and printed, as Kubernetes' {@code registry/rest} Lister and
 * TableConvertor: the objects the caller may see and how selectors and tables read them. {@link Listings} does the
 * rest, the same way for every resource.
 */
interface Lister<T> {

    /** One page of a list: its objects, and the key the next page starts after (null on the last page). */
    record Page<T>(List<T> items, String next) {}

    /** Every object the caller may see, in the order a list shows them. */
    List<T> objects(ListOptions options);

    /** The key a list is ordered and continued by. */
    String key(T item);

    /**
     * Up to {@code limit} selected objects after the key {@code after}, in key order. By default the whole list,
     * selected and cut; a resource kept in a sorted store reads only a page instead.
     */
    default Page<T> page(ListOptions options, Predicate<T> selected, String after, int limit) {
        List<T> all = objects(options).stream()
                .filter(selected)
                .filter(item -> after == null || key(item).compareTo(after) > 0)
                .sorted(Comparator.comparing(this::key))
                .toList();
        return all.size() > limit ? new Page<>(all.subList(0, limit), key(all.get(limit - 1))) : new Page<>(all, null);
    }

    /** Whether a list of this resourceVersion can still be continued: its changes since are still known. */
    default boolean resumable(String version) {
        return true;
    }

    Map<String, String> labels(T item);

    /** The fields {@code ?fieldSelector=} may name, with this object's values. */
    Map<String, String> fields(T item);

    Set<String> selectableFields();

    /** The object's metadata, which a Table row carries by default. */
    Object metadata(T item);

    /** The JSON list ({@code kind: <Kind>List}) of these objects, with its version and continue token. */
    Object listOf(List<T> items, String resourceVersion, String continueToken);

    TableConvertor<T> table();
}
