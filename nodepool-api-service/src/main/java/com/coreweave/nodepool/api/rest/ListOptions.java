package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.kube.FieldSelector;
import com.coreweave.nodepool.api.kube.LabelSelector;
import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import java.util.Set;

/** The query of a Kubernetes read: selectors, the representation asked for, and where a watch starts. */
public class ListOptions {

    @QueryParam("labelSelector")
    String labelSelector;

    @QueryParam("fieldSelector")
    String fieldSelector;

    @QueryParam("resourceVersion")
    String resourceVersion;

    @QueryParam("allowWatchBookmarks")
    boolean allowWatchBookmarks;

    @QueryParam("timeoutSeconds")
    Long timeoutSeconds;

    @QueryParam("includeObject")
    String includeObject;

    @QueryParam("limit")
    Integer limit;

    @QueryParam("continue")
    String continueToken;

    @HeaderParam(HttpHeaders.ACCEPT)
    String accept;

    /** The namespace of a namespaced path ({@code /namespaces/{ns}/...}); null for every namespace. */
    String namespace;

    ListOptions inNamespace(String name) {
        this.namespace = name;
        return this;
    }

    /** These options asking for the object itself, not a Table. */
    ListOptions plain() {
        return new ListOptions();
    }

    LabelSelector labels() {
        try {
            return LabelSelector.parse(labelSelector);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid labelSelector: " + e.getMessage());
        }
    }

    FieldSelector fields(Set<String> supported) {
        try {
            return FieldSelector.parse(fieldSelector, supported);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("invalid fieldSelector: " + e.getMessage());
        }
    }

    /** Whether the client asked for a {@code meta.k8s.io} Table, as {@code kubectl get} does. */
    boolean table() {
        return accept != null && accept.contains("as=Table") && accept.contains("g=meta.k8s.io");
    }

    /** What a Table row carries of its object: {@code Metadata} (the default), the whole {@code Object}, or None. */
    String includeObject() {
        String include = includeObject == null || includeObject.isEmpty() ? "Metadata" : includeObject;
        if (!Set.of("Metadata", "Object", "None").contains(include)) {
            throw ApiException.badRequest("includeObject must be Metadata, Object or None, not \"" + include + "\"");
        }
        return include;
    }
}
