package com.coreweave.nodepool.api.rest;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListMetaBuilder;
import java.util.Map;

/** A {@link Lister} of core {@code v1} objects (fabric8's types), which carry their name and labels alike. */
interface CoreLister<T extends HasMetadata> extends Lister<T> {

    @Override
    default String key(T item) {
        return item.getMetadata().getName();
    }

    @Override
    default Map<String, String> labels(T item) {
        return item.getMetadata().getLabels() == null
                ? Map.of()
                : item.getMetadata().getLabels();
    }

    @Override
    default Object metadata(T item) {
        return item.getMetadata();
    }

    /** The metadata of a list of them. */
    static ListMeta listMeta(String resourceVersion, String continueToken) {
        return new ListMetaBuilder()
                .withResourceVersion(resourceVersion)
                .withContinue(continueToken)
                .build();
    }
}
