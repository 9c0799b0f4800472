package com.coreweave.nodepool.kit.faults;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * The service's {@link InjectedFaults}: {@link InjectedFaults#OFF} unless {@code nodepool.fault-injection.enabled} and
 * the service has fault points, so that a deployment that never enables it has nothing to arm.
 */
@ApplicationScoped
public class FaultInjection {

    private static final Logger LOG = Logger.getLogger(FaultInjection.class);

    @ConfigProperty(name = "nodepool.fault-injection.enabled", defaultValue = "false")
    boolean enabled;

    @Inject
    Instance<FaultPoints> points;

    @Produces
    @Singleton
    InjectedFaults faults() {
        if (!enabled || !points.isResolvable()) {
            return InjectedFaults.OFF;
        }
        InjectedFaults faults = new InjectedFaults(points.get().names());
        LOG.warnf("fault injection is enabled: operators can arm faults at %s (/admin/faults)", faults.points());
        return faults;
    }
}
