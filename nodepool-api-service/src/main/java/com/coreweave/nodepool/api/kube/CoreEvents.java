package com.coreweave.nodepool.api.kube;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * A pool's Kubernetes Event as the core {@code v1} Event that {@code kubectl describe}, {@code get events} and
 * {@code events} read. Events about cluster-scoped objects live in the {@code default} namespace, as in a cluster; an
 * event about a node names the node by its name in place of a uid, as the kubelet's events do, which is one of the two
 * ways {@code describe node} looks them up.
 */
public final class CoreEvents {

    public static final String NAMESPACE = "default";
    /** The fields an events field selector may name: the API server's. */
    public static final Set<String> SELECTABLE = Set.of(
            "metadata.name",
            "metadata.namespace",
            "involvedObject.apiVersion",
            "involvedObject.kind",
            "involvedObject.name",
            "involvedObject.namespace",
            "involvedObject.uid",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type");

    private CoreEvents() {}

    public static Event of(Event event) {
        var about = event.getInvolvedObject();
        String aboutUid = "Node".equals(about.getKind()) ? about.getName() : about.getUid();
        String name = event.getMetadata().getName();
        return new EventBuilder(event)
                .editMetadata()
                .withNamespace(NAMESPACE)
                .withUid(UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8))
                        .toString())
                .withCreationTimestamp(event.getFirstTimestamp())
                .endMetadata()
                .editInvolvedObject()
                .withUid(aboutUid)
                .endInvolvedObject()
                .build();
    }

    /** The fields {@code ?fieldSelector=} can name for events (those of the API server), with this event's values. */
    public static Map<String, String> fields(Event event) {
        var about = event.getInvolvedObject();
        return Map.ofEntries(
                Map.entry("metadata.name", event.getMetadata().getName()),
                Map.entry("metadata.namespace", NAMESPACE),
                Map.entry("involvedObject.apiVersion", Objects.requireNonNullElse(about.getApiVersion(), "")),
                Map.entry("involvedObject.kind", Objects.requireNonNullElse(about.getKind(), "")),
                Map.entry("involvedObject.name", Objects.requireNonNullElse(about.getName(), "")),
                Map.entry("involvedObject.namespace", ""),
                Map.entry("involvedObject.uid", Objects.requireNonNullElse(about.getUid(), "")),
                Map.entry("involvedObject.resourceVersion", ""),
                Map.entry("involvedObject.fieldPath", ""),
                Map.entry("reason", Objects.requireNonNullElse(event.getReason(), "")),
                Map.entry("reportingComponent", Objects.requireNonNullElse(event.getReportingComponent(), "")),
                Map.entry("source", Objects.requireNonNullElse(event.getSource().getComponent(), "")),
                Map.entry("type", Objects.requireNonNullElse(event.getType(), "")));
    }
}
