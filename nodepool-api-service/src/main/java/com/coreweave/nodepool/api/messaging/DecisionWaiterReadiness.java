package com.coreweave.nodepool.api.messaging;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Not ready to take writes until the answers to them can be read. */
@Readiness
@ApplicationScoped
public class DecisionWaiterReadiness implements HealthCheck {

    @Inject
    DecisionWaiter waiter;

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("request-decisions")
                .status(waiter.ready())
                .build();
    }
}
