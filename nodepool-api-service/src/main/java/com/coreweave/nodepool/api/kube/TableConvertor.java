package com.coreweave.nodepool.api.kube;

import java.util.List;

/** Converts a resource's objects to the Table {@code kubectl get} prints: its columns live beside the resource. */
public interface TableConvertor<T> {

    List<Table.Column> columns();

    /** One object's cells, in the order of {@link #columns()}. */
    List<Object> cells(T item, java.time.Instant now);
}
