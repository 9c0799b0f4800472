package com.coreweave.nodepool.systemtest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Stops each stack as soon as the last test class of the plan that uses it has finished, so that an idle cluster does
 * not take the processor from the classes still running; and prints when each class ran, which is where the suite's
 * time goes. Registered through {@code META-INF/services}.
 */
public final class StackReleases implements TestExecutionListener {

    private static final Logger LOG = Logger.getLogger(StackReleases.class.getName());

    private final Map<String, AtomicInteger> remaining = new ConcurrentHashMap<>();
    private final Map<String, Long> startedAt = new ConcurrentHashMap<>();
    private final List<String> timeline = new ArrayList<>();
    private long planStartedAt;

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
        planStartedAt = System.nanoTime();
        for (TestIdentifier root : plan.getRoots()) {
            for (TestIdentifier test : plan.getDescendants(root)) {
                String lock = lockOf(test);
                if (lock != null) {
                    remaining.computeIfAbsent(lock, l -> new AtomicInteger()).incrementAndGet();
                }
            }
        }
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        if (testClass(test) != null) {
            startedAt.put(test.getUniqueId(), System.nanoTime());
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        Class<?> testClass = testClass(test);
        if (testClass == null) {
            return;
        }
        long now = System.nanoTime();
        long started = startedAt.getOrDefault(test.getUniqueId(), now);
        String line = String.format(
                "%5d s to %5d s  %-28s %s",
                Duration.ofNanos(started - planStartedAt).toSeconds(),
                Duration.ofNanos(now - planStartedAt).toSeconds(),
                testClass.getSimpleName(),
                StackUse.lockOf(testClass) == null ? "own stack" : StackUse.lockOf(testClass));
        synchronized (timeline) {
            timeline.add(line);
        }
        String lock = lockOf(test);
        if (lock != null && remaining.get(lock).decrementAndGet() == 0) {
            LOG.info(() -> "the last class on " + lock + " has finished: stopping it");
            SystemStack.stop(lock);
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        synchronized (timeline) {
            if (!timeline.isEmpty()) {
                LOG.info(() -> "system-test classes, from the start of the plan:\n" + String.join("\n", timeline));
            }
        }
    }

    private static String lockOf(TestIdentifier test) {
        Class<?> testClass = testClass(test);
        return testClass == null ? null : StackUse.lockOf(testClass);
    }

    /** The class of a class container, else null (methods, engines, and classes of other sources). */
    private static Class<?> testClass(TestIdentifier test) {
        if (!test.isContainer()) {
            return null;
        }
        return test.getSource()
                .filter(ClassSource.class::isInstance)
                .map(source -> ((ClassSource) source).getJavaClass())
                .orElse(null);
    }
}
