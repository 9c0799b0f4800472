package com.coreweave.nodepool.api.messaging;

import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.Workload;
import com.coreweave.nodepool.schema.topics.Rejection;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.StatusCause;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * The REST twin of {@code workload-pending}: a workload posted or deleted through the API is published as the
 * {@code WorkloadPending} or {@code WorkloadGone} CloudEvent a scheduler would publish, and read back through the
 * topic's own checks first, so REST refuses exactly what the topic would dead-letter (with a 422 saying why).
 */
@ApplicationScoped
public class WorkloadRequests {

    static final String SOURCE = "nodepool-api-service/rest";
    public static final String KIND = "Workload";

    @Inject
    RecordPublisher publisher;

    @Inject
    Clock clock;

    /** Publishes {@code data} of the caller's {@code org} as pending; returns the workload as read. */
    public Workload pending(String org, Workload data) {
        return publish(org, data.name(), Workload.PENDING, data);
    }

    /** Publishes that the workload is gone: the planner forgets it and its nodes are consolidated. */
    public void gone(String org, String name) {
        publish(org, name, Workload.GONE, new Workload(org, name, 0, false, null, null));
    }

    private Workload publish(String org, String name, String type, Workload data) {
        if (data.org() != null && !data.org().equals(org)) {
            throw ApiException.invalid(
                    KIND,
                    name,
                    List.of(new StatusCause(
                            "org",
                            "a workload belongs to the caller's org " + org + ", not " + data.org(),
                            "FieldValueInvalid")));
        }
        Workload own = new Workload(org, name, data.pods(), data.gang(), data.needs(), data.scheduled());
        String key;
        try {
            key = new PoolKey(org, name).toString();
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid(
                    KIND,
                    String.valueOf(name),
                    List.of(new StatusCause("name", "a workload needs a name without '/'", "FieldValueRequired")));
        }
        CloudEvent<Workload> event =
                CloudEvent.of(UUID.randomUUID().toString(), SOURCE, type, key, clock.instant(), own);
        CloudEvent<Workload> read;
        try {
            read = Topics.WORKLOAD_PENDING.read(key, Json.bytes(event));
        } catch (Rejection rejection) {
            throw ApiException.invalid(
                    KIND, name, List.of(new StatusCause(null, rejection.reason(), "FieldValueInvalid")));
        }
        publisher.publish(Topics.WORKLOAD_PENDING.name(), key, event);
        return read.data();
    }
}
