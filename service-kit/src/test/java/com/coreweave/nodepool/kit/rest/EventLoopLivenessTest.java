package com.coreweave.nodepool.kit.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoopGroup;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventLoopLivenessTest {

    @Test
    void aStuckEventLoopIsCountedAndFreeOnesAreNot() throws Exception {
        DefaultEventLoopGroup loops = new DefaultEventLoopGroup(3);
        CountDownLatch release = new CountDownLatch(1);
        try {
            assertThat(EventLoopLiveness.stuck(loops, Duration.ofMillis(500))).isZero();
            loops.next().execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            long start = System.nanoTime();
            assertThat(EventLoopLiveness.stuck(loops, Duration.ofMillis(300))).isEqualTo(1);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("the check itself is bounded")
                    .isLessThan(Duration.ofSeconds(5));
        } finally {
            release.countDown();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
