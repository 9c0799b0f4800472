package com.coreweave.nodepool.systemtest;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * How a system-test class uses the stacks, which decides what it may run beside: the test classes run several at a time
 * (failsafe's JUnit configuration in this module's pom), because most of their time is spent waiting on boot timers and
 * topics, not computing. Every {@code *IT} names one of these ({@code StackUseTest} checks it).
 *
 * <p>Classes that share a zone × instance type (its fleet and quotas) or other state beyond the stack add a
 * {@link ResourceLock} of that name as well.
 */
final class StackUse {

    /** The shared stack ({@link SystemStack#get()}). */
    static final String SHARED = "system-stack";

    /** The stack of the fault tests ({@link SystemStack#forFaults()}). */
    static final String FAULTS = "fault-stack";

    /** The stack of the classes that disrupt one ({@link SystemStack#forDisruption()}). */
    static final String DISRUPTION = "disruption-stack";

    private StackUse() {}

    /** Works on the shared stack in its own orgs, zones and types, beside other such classes. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @ResourceLock(value = SHARED, mode = ResourceAccessMode.READ)
    @ExtendWith(ClassSlots.class)
    @interface Shares {}

    /**
     * Kills, restarts or adds a service, or loads the stack on purpose: runs on the disruption stack
     * ({@link SystemStack#forDisruption()}), one such class at a time, beside the shared stack's classes.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @ResourceLock(value = DISRUPTION, mode = ResourceAccessMode.READ_WRITE)
    @interface Disrupts {}

    /** The lock (and so the stack) a class of these annotations uses, or null for {@link Own}. */
    static String lockOf(Class<?> testClass) {
        if (testClass.isAnnotationPresent(Shares.class)) {
            return SHARED;
        }
        if (testClass.isAnnotationPresent(Disrupts.class)) {
            return DISRUPTION;
        }
        return testClass.isAnnotationPresent(Faults.class) ? FAULTS : null;
    }

    /** Kills or poisons the fault stack: one such class at a time, beside the shared stack's classes. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @ResourceLock(value = FAULTS, mode = ResourceAccessMode.READ_WRITE)
    @interface Faults {}

    /** Uses neither stack (a stack or client of its own), so it runs beside anything. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @ExtendWith(ClassSlots.class)
    @interface Own {}
}
