package com.coreweave.nodepool.provisioner.domain.model;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.Limits;
import com.coreweave.nodepool.schema.events.NodeChangeRequested;
import com.coreweave.nodepool.schema.resource.Node;
import com.coreweave.nodepool.schema.resource.Taint;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a user set on a node with kubectl (cordon, labels, annotations, taints), kept apart from what the platform sets
 * so that neither undoes the other: a remediation's uncordon leaves a user's cordon, a user's uncordon leaves the
 * platform's, and a pool's reconcile rebuilds its own labels without touching the user's. The node as published is the
 * platform's node with these on top ({@link #onto}).
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record UserMarks(
        boolean cordoned, Map<String, String> labels, Map<String, String> annotations, List<Taint> taints) {

    public static final UserMarks NONE = new UserMarks(false, Map.of(), Map.of(), List.of());

    public UserMarks {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        taints = taints == null ? List.of() : List.copyOf(taints);
    }

    /**
     * The marks after {@code change}; the marks as they are when the change would take them past the limits (the
     * api-service refuses such a change first, so only a race of two changes gets here).
     */
    public UserMarks with(NodeChangeRequested change) {
        boolean cordon = change.unschedulable() == null ? cordoned : change.unschedulable();
        Map<String, String> nextLabels = changed(labels, change.labels(), change.removedLabels());
        Map<String, String> nextAnnotations = changed(annotations, change.annotations(), change.removedAnnotations());
        List<Taint> nextTaints = change.taints() == null ? taints : change.taints();
        UserMarks next = new UserMarks(cordon, nextLabels, nextAnnotations, nextTaints);
        return next.withinLimits() ? next : this;
    }

    private boolean withinLimits() {
        int max = Limits.MAX_USER_NODE_MARKS;
        return labels.size() <= max
                && annotations.size() <= max
                && taints.size() <= max
                && Json.bytes(labels).length + Json.bytes(annotations).length <= Limits.MAX_NODE_METADATA_BYTES;
    }

    private static Map<String, String> changed(
            Map<String, String> current, Map<String, String> set, List<String> removed) {
        Map<String, String> next = new TreeMap<>(current);
        if (removed != null) {
            removed.forEach(next::remove);
        }
        if (set != null) {
            next.putAll(set);
        }
        return next;
    }

    /** Whether the user set nothing, so the node needs no marks of its own. */
    public boolean none() {
        return !cordoned && labels.isEmpty() && annotations.isEmpty() && taints.isEmpty();
    }

    /**
     * {@code platform} with these marks on top: cordoned when either cordoned it, the user's labels and annotations
     * beside the platform's (the platform's value wins a key both set: the api-service refuses platform keys, and a key
     * the pool's spec later takes is the spec's), the user's taints after the platform's (a taint of the same key and
     * effect as one of the platform's is the platform's).
     */
    public Node onto(Node platform) {
        if (none()) {
            return platform;
        }
        var meta = platform.metadata();
        Map<String, String> shownLabels = beside(meta.labels(), labels);
        Map<String, String> shownAnnotations = beside(meta.annotations(), annotations);
        List<Taint> shownTaints = new ArrayList<>(
                platform.spec().taints() == null ? List.of() : platform.spec().taints());
        for (Taint taint : taints) {
            if (shownTaints.stream().noneMatch(t -> sameTaint(t, taint))) {
                shownTaints.add(taint);
            }
        }
        return platform.withMetadata(
                        new Node.Meta(meta.name(), meta.creationTimestamp(), shownLabels, shownAnnotations))
                .withSpec(new Node.Spec(
                        platform.spec().providerID(),
                        platform.spec().unschedulable() || cordoned,
                        shownTaints.isEmpty() ? null : List.copyOf(shownTaints)));
    }

    /** Kubernetes tells a node's taints apart by key and effect. */
    static boolean sameTaint(Taint a, Taint b) {
        return Objects.equals(a.key(), b.key()) && Objects.equals(a.effect(), b.effect());
    }

    private static Map<String, String> beside(Map<String, String> platform, Map<String, String> user) {
        if (user.isEmpty()) {
            return platform;
        }
        Map<String, String> shown = new TreeMap<>(user);
        if (platform != null) {
            shown.putAll(platform);
        }
        return shown;
    }
}
