package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.OtlpCollector;
import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;
import java.util.List;

/**
 * The whole system for the system tests: a real broker and the five services as separate processes, started once per
 * test JVM and shared by the test classes (each works on its own instance types, zones or orgs). Minutes of the real
 * timelines run in seconds here; everything else is configured as in production.
 */
final class SystemStack {

    /** Orgs of the tests beyond the local profile's {@code demo} and {@code other}, each with its own token. */
    static final List<String> ORGS = List.of("chaos-a", "chaos-b", "chaos-c", "chaos-probe", "first-try", "poison");

    /** One lock per stack, so that the two start at the same time when test classes of both run first. */
    private static final Object SHARED = new Object();

    private static final Object FAULTS = new Object();
    private static final Object DISRUPTION = new Object();
    private static Stack stack;
    private static Stack faultStack;
    private static Stack disruptionStack;
    private static OtlpCollector faultTraces;

    private SystemStack() {}

    static Stack get() {
        synchronized (SHARED) {
            if (stack == null) {
                stack = configured().build().start();
            }
            return stack;
        }
    }

    /**
     * The stack of the classes that kill, restart or add its services or load it on purpose
     * ({@link StackUse.Disrupts}), configured as the shared one: they run one at a time on it while the shared stack's
     * classes run beside them.
     */
    static Stack forDisruption() {
        synchronized (DISRUPTION) {
            if (disruptionStack == null) {
                disruptionStack = configured().build().start();
            }
            return disruptionStack;
        }
    }

    /** Stops the stack behind a {@link StackUse} lock once no class still to run needs it ({@link StackReleases}). */
    static void stop(String lock) {
        Stack done;
        switch (lock) {
            case StackUse.SHARED -> {
                synchronized (SHARED) {
                    done = stack;
                }
            }
            case StackUse.FAULTS -> {
                synchronized (FAULTS) {
                    done = faultStack;
                }
            }
            case StackUse.DISRUPTION -> {
                synchronized (DISRUPTION) {
                    done = disruptionStack;
                }
            }
            default -> throw new IllegalArgumentException("no stack behind " + lock);
        }
        if (done != null) {
            done.close();
        }
    }

    /**
     * A third stack for the tests that poison its topics ({@link PoisonIT}), so the others never see their records,
     * exporting every span to {@link #faultTraces()} ({@link TracingIT}). Started on first use, stopped after the last
     * class that uses it.
     */
    static Stack forFaults() {
        synchronized (FAULTS) {
            if (faultStack == null) {
                faultTraces = OtlpCollector.start();
                Runtime.getRuntime().addShutdownHook(new Thread(faultTraces::close, "fault-traces-shutdown"));
                faultStack = traced(configured(), faultTraces).build().start();
            }
            return faultStack;
        }
    }

    /** The collector the fault stack's services send every span to. */
    static OtlpCollector faultTraces() {
        synchronized (FAULTS) {
            forFaults();
            return faultTraces;
        }
    }

    /** The stack, its services exporting every span to {@code collector} over OTLP/HTTP. */
    private static Stack.Builder traced(Stack.Builder stack, OtlpCollector collector) {
        for (Service service : Service.values()) {
            stack.withProperty(service, "quarkus.otel.sdk.disabled", "false")
                    .withProperty(
                            service,
                            "quarkus.otel.exporter.otlp.traces.endpoint",
                            collector.endpoint().toString())
                    .withProperty(service, "quarkus.otel.exporter.otlp.traces.protocol", "http/protobuf")
                    .withProperty(service, "quarkus.otel.bsp.schedule.delay", "100ms");
        }
        return stack;
    }

    /**
     * The system tests' stack before it is started, for a runnable that starts its own (./stack chaos): the five
     * services with the timelines in seconds, and a bearer token {@code <org>-token} for each of {@link #ORGS}.
     */
    static Stack.Builder configured() {
        Stack.Builder builder = Stack.builder()
                .withServices(Service.values())
                .withApiTls()
                .withProperty(Service.PROVISIONER, "provisioner.boot-time", "2s")
                .withProperty(Service.PROVISIONER, "provisioner.boot-failure-rate", "0")
                .withProperty(Service.PROVISIONER, "provisioner.timer-interval", "200ms")
                .withProperty(Service.PROVISIONER, "provisioner.drain-grace", "3s")
                .withProperty(Service.PROVISIONER, "provisioner.autoscaler.scale-up-after", "2s")
                .withProperty(Service.PROVISIONER, "provisioner.autoscaler.scale-down-unneeded-time", "5s")
                .withProperty(Service.PROVISIONER, "provisioner.health.prepare-for-terminate", "1s")
                .withProperty(Service.PROVISIONER, "provisioner.retry-interval", "1s")
                .withProperty(Service.PREEMPTION, "preemption.warning-period", "3s")
                .withProperty(Service.PREEMPTION, "preemption.removal-deadline", "12s")
                .withProperty(Service.PREEMPTION, "preemption.default-grace", "2s")
                .withProperty(Service.PREEMPTION, "preemption.tick", "200ms")
                // A deleted pool's Events for 15 s instead of an hour (KubectlIT sees them listed, then gone).
                .withProperty(Service.API, "nodepool.api.event-retention", "15s");
        // The demo profile has it on already; said here because FaultInjectionIT depends on it.
        for (Service service : Service.values()) {
            builder.withProperty(service, "nodepool.fault-injection.enabled", "true");
        }
        for (String org : ORGS) {
            builder.withProperty(Service.API, StaticTokenProperty.name(token(org)), StaticTokenProperty.value(org));
        }
        return builder;
    }

    static String token(String org) {
        return org + "-token";
    }

    static Api api(String token) {
        return api(get(), token);
    }

    static Api api(Stack stack, String token) {
        return new Api(stack.url(Service.API), token);
    }

    static Api admin(Service service) {
        return admin(get(), service);
    }

    static Api admin(Stack stack, Service service) {
        return new Api(stack.url(service), "admin-token");
    }

    /** Sets an org's quota for one zone and type, through the admin API. */
    static void quota(String org, String zone, String type, int maxNodes) {
        quota(get(), org, zone, type, maxNodes);
    }

    static void quota(Stack stack, String org, String zone, String type, int maxNodes) {
        var answer = admin(stack, Service.QUOTA)
                .put("/admin/quotas/" + org + "/" + zone + "/" + type, "{\"maxNodes\": " + maxNodes + "}");
        if (answer.code() != 200) {
            throw new AssertionError("setting a quota answered " + answer.code() + ": " + answer.body());
        }
    }

    /** Sets how many machines of a type a zone has in service, through the admin API. */
    static void fleet(String zone, String type, int machines) {
        fleet(get(), zone, type, machines);
    }

    static void fleet(Stack stack, String zone, String type, int machines) {
        var answer = admin(stack, Service.CAPACITY)
                .put("/admin/fleet/" + zone + "/" + type, "{\"machines\": " + machines + "}");
        if (answer.code() != 200 && answer.code() != 202) {
            throw new AssertionError("setting the fleet answered " + answer.code() + ": " + answer.body());
        }
    }
}
