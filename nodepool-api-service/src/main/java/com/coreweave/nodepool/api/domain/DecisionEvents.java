package com.coreweave.nodepool.api.domain;

import static com.coreweave.nodepool.api.domain.PoolDecider.COMPONENT;

import com.coreweave.nodepool.schema.events.NodePoolAccepted;
import com.coreweave.nodepool.schema.events.PoolRef;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.resource.CwEvent;
import com.coreweave.nodepool.schema.resource.NodePoolSpec;
import io.fabric8.kubernetes.api.model.Status;
import java.time.Instant;
import java.util.List;

/** The events a pool's decisions record: created, metadata changed, the platform's findings, refusals. */
public final class DecisionEvents {

    private DecisionEvents() {}

    static RecordedEvent created(PoolRef ref, String name, NodePoolSpec spec, Instant now) {
        return RecordedEvent.ofPool(
                ref,
                CwEvent.CWNodePoolCreated,
                "NodePool " + name + " created: " + spec.target() + " x " + spec.instanceType() + " in " + spec.region()
                        + ".",
                ref.uid(),
                COMPONENT,
                now);
    }

    static RecordedEvent metadataUpdated(NodePoolAccepted next, String resourceVersion, Instant now) {
        return RecordedEvent.ofPool(
                PoolRef.of(next),
                CwEvent.CWNodePoolMetadata,
                "NodePool metadata updated.",
                next.uid() + "/rv/" + resourceVersion,
                COMPONENT,
                now);
    }

    static List<RecordedEvent> findings(PoolRef ref, PlatformValidator.Verdict verdict, Instant now) {
        return verdict.events().stream()
                .map(f -> RecordedEvent.ofPool(
                        ref, f.event(), f.message(), ref.uid() + "/" + ref.generation(), COMPONENT, now))
                .toList();
    }

    /** The Warning on an existing pool that a topic request for it was refused, and why. */
    public static RecordedEvent refused(PoolRequest request, NodePoolAccepted current, Status why, Instant now) {
        PoolRef ref = PoolRef.of(current);
        return RecordedEvent.ofPool(
                ref,
                CwEvent.CWNodePoolNodesRequestFailed,
                "Request " + request.id() + " from " + request.source() + " was refused (" + why.getReason() + "): "
                        + why.getMessage(),
                ref.uid() + "/request/" + request.id(),
                COMPONENT,
                now);
    }

    /** The Warning that an invalid generation was not applied, and which one stays in force. */
    public static RecordedEvent notApplied(NodePoolAccepted next, Instant now) {
        PoolRef ref = PoolRef.of(next);
        return RecordedEvent.ofPool(
                ref,
                CwEvent.CWNodePoolNodesRequestFailed,
                "Generation " + next.generation()
                        + " of NodePool " + ref.pool() + " was not applied: "
                        + next.validation().message() + " Generation "
                        + next.lastValid().generation() + " stays in force.",
                ref.uid() + "/" + ref.generation() + "/not-applied",
                COMPONENT,
                now);
    }
}
