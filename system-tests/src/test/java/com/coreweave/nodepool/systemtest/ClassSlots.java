package com.coreweave.nodepool.systemtest;

import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * How many classes of the shared stack, or with stacks of their own, run at once: the executor's pool grows past its
 * parallelism whenever a thread waits (for a lock, or to join another class), and a dozen classes at once on two cores
 * time each other out. The two one-at-a-time chains (fault and disruption stacks) are not counted: they are the suite's
 * longest path, and their locks bound them already. Taken before the class's {@code @BeforeAll} (its stack start
 * included), given back after its {@code @AfterAll}.
 */
final class ClassSlots implements BeforeAllCallback {

    /** {@code system-tests.parallel-classes} (this module's pom) less the two chains, at least one. */
    private static final Semaphore SLOTS =
            new Semaphore(Math.max(1, Integer.getInteger("system-tests.parallel-classes", 4) - 2), true);

    @Override
    public void beforeAll(ExtensionContext context) throws InterruptedException {
        SLOTS.acquire();
        context.getStore(ExtensionContext.Namespace.create(ClassSlots.class))
                .put("slot", (AutoCloseable) SLOTS::release);
    }
}
