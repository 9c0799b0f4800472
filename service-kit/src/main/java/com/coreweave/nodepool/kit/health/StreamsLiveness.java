package com.coreweave.nodepool.kit.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * Not live once the instance has been stalled ({@link StreamsReadiness}: a task with records waiting and no commit, or
 * an assigned partition whose task never starts) for {@code nodepool.health.liveness-timeout}: the orchestrator's
 * restart is then the remedy left, since the cause of the one task seen never starting is not known yet
 * (docs/reliability.md). Shorter stalls only take the instance out of rotation.
 */
@Liveness
@ApplicationScoped
public class StreamsLiveness implements HealthCheck {

    @Inject
    @Readiness
    StreamsReadiness readiness;

    @Inject
    HealthSettings settings;

    @Override
    public HealthCheckResponse call() {
        StreamsReadiness.Verdict verdict = readiness.verdict();
        boolean live = verdict.stalledFor().compareTo(settings.livenessTimeout()) < 0;
        return HealthCheckResponse.named("kafka-streams-progress")
                .status(live)
                .withData("stalledFor", verdict.stalledFor().toString())
                .withData("livenessTimeout", settings.livenessTimeout().toString())
                .build();
    }
}
