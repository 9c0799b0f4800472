package com.coreweave.nodepool.kit.faults;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The faults an operator armed on this instance, by point and scope, which the service's fault points consult; held in
 * memory only (lost at restart, not shared with the other instances). {@link #OFF} when fault injection is disabled: a
 * point then costs one read of an empty list.
 */
public final class InjectedFaults {

    /** Fault injection disabled: nothing can be armed, nothing fires. */
    public static final InjectedFaults OFF = new InjectedFaults(Set.of());

    private final SortedSet<String> points;
    private volatile List<ArmedFault> armed = List.of();

    /** Fault injection enabled at the given points (those the service checks). */
    public InjectedFaults(Set<String> points) {
        this.points = new TreeSet<>(points);
    }

    /** Whether anything can be armed here. */
    public boolean enabled() {
        return !points.isEmpty();
    }

    /** The points a fault can be armed at. */
    public SortedSet<String> points() {
        return points;
    }

    /**
     * Why the check at {@code point} fails, when an armed fault covers it, or null; a fault that fires counts down, and
     * is gone once its count or its time is up. Zone, org or pool may be null where the point does not know it.
     */
    public String fire(String point, String zone, String org, String pool, Instant now) {
        if (armed.isEmpty()) {
            return null;
        }
        synchronized (this) {
            List<ArmedFault> next = new ArrayList<>(armed);
            next.removeIf(f -> f.expired(now));
            String failure = null;
            for (int i = 0; i < next.size() && failure == null; i++) {
                ArmedFault fault = next.get(i);
                if (fault.point().equals(point) && fault.scope().covers(zone, org, pool)) {
                    failure = fault.failure();
                    ArmedFault after = fault.fired();
                    if (after == null) {
                        next.remove(i);
                    } else {
                        next.set(i, after);
                    }
                }
            }
            armed = List.copyOf(next);
            return failure;
        }
    }

    /** Arms {@code fault}, replacing one at the same point and scope. */
    public synchronized ArmedFault arm(ArmedFault fault) {
        if (!points.contains(fault.point())) {
            throw new IllegalArgumentException(
                    "no fault point " + fault.point() + " here; the points of this service are " + points);
        }
        List<ArmedFault> next = new ArrayList<>(armed);
        next.removeIf(f -> f.id().equals(fault.id()));
        next.add(fault);
        armed = List.copyOf(next);
        return fault;
    }

    /** Disarms the fault at {@code point} and {@code scope}; whether there was one. */
    public synchronized boolean disarm(String point, FaultScope scope) {
        String id = point + "@" + scope;
        List<ArmedFault> next = new ArrayList<>(armed);
        boolean removed = next.removeIf(f -> f.id().equals(id));
        armed = List.copyOf(next);
        return removed;
    }

    /** Disarms every fault; how many there were. */
    public synchronized int disarmAll() {
        int count = armed.size();
        armed = List.of();
        return count;
    }

    /** The faults armed now (those whose time is up left out). */
    public List<ArmedFault> armed(Instant now) {
        return armed.stream().filter(f -> !f.expired(now)).toList();
    }
}
