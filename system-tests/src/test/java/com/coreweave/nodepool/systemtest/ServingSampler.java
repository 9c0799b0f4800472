package com.coreweave.nodepool.systemtest;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a pool's serving nodes through REST every 100 ms, as a user watching it would, while a disruption goes on: the
 * fewest seen and how many samples were taken.
 */
final class ServingSampler implements AutoCloseable {

    private final AtomicBoolean sampling = new AtomicBoolean(true);
    private final AtomicInteger fewest = new AtomicInteger(Integer.MAX_VALUE);
    private final AtomicInteger samples = new AtomicInteger();
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private final Future<?> sampled;

    private ServingSampler(OnePool pool) {
        sampled = thread.submit(() -> {
            while (sampling.get()) {
                int serving = (int) pool.nodes().stream()
                        .filter(DisruptionBudgetIT::serving)
                        .count();
                fewest.accumulateAndGet(serving, Math::min);
                samples.incrementAndGet();
                Thread.sleep(100);
            }
            return null;
        });
    }

    static ServingSampler of(OnePool pool) {
        return new ServingSampler(pool);
    }

    int fewest() {
        return fewest.get();
    }

    int samples() {
        return samples.get();
    }

    @Override
    public void close() throws InterruptedException, ExecutionException {
        sampling.set(false);
        try {
            sampled.get();
        } finally {
            thread.shutdown();
        }
    }
}
