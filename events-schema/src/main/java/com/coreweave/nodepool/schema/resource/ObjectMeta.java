package com.coreweave.nodepool.schema.resource;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes object metadata, the subset a cluster-scoped NodePool carries. {@code managedFields} records which field
 * manager (kubectl, a controller, a server-side apply) set which fields, as the API server keeps it.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({
    "name",
    "uid",
    "generation",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
    "labels",
    "annotations",
    "managedFields"
})
public record ObjectMeta(
        String name,
        String uid,
        Long generation,
        String resourceVersion,
        Instant creationTimestamp,
        Instant deletionTimestamp,
        Map<String, String> labels,
        Map<String, String> annotations,
        List<ManagedFieldsEntry> managedFields) {

    public ObjectMeta(
            String name,
            String uid,
            Long generation,
            String resourceVersion,
            Instant creationTimestamp,
            Instant deletionTimestamp,
            Map<String, String> labels,
            Map<String, String> annotations) {
        this(name, uid, generation, resourceVersion, creationTimestamp, deletionTimestamp, labels, annotations, null);
    }

    public static ObjectMeta named(String name) {
        return new ObjectMeta(name, null, null, null, null, null, null, null);
    }

    public ObjectMeta withName(String newName) {
        return new ObjectMeta(
                newName,
                uid,
                generation,
                resourceVersion,
                creationTimestamp,
                deletionTimestamp,
                labels,
                annotations,
                managedFields);
    }

    public ObjectMeta withResourceVersion(String version) {
        return new ObjectMeta(
                name,
                uid,
                generation,
                version,
                creationTimestamp,
                deletionTimestamp,
                labels,
                annotations,
                managedFields);
    }

    public ObjectMeta withDeletionTimestamp(Instant at) {
        return new ObjectMeta(
                name, uid, generation, resourceVersion, creationTimestamp, at, labels, annotations, managedFields);
    }

    public ObjectMeta withManagedFields(List<ManagedFieldsEntry> entries) {
        return new ObjectMeta(
                name,
                uid,
                generation,
                resourceVersion,
                creationTimestamp,
                deletionTimestamp,
                labels,
                annotations,
                entries);
    }
}
