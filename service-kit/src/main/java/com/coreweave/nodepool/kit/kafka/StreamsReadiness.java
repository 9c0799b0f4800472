package com.coreweave.nodepool.kit.kafka;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only once the Streams topology runs: before that the stores cannot be read and the admin APIs that wait on
 * them would answer 503. (Quarkus' own readiness check only says that the topics exist.) A rebalance after the first
 * start keeps the instance ready, as its stores come back within moments.
 */
@Readiness
@ApplicationScoped
public class StreamsReadiness implements HealthCheck {

  @Inject
  KafkaStreams streams;

  private volatile boolean ranOnce;

  @Override
  public HealthCheckResponse call() {
    KafkaStreams.State state = streams.state();
    ranOnce |= state == KafkaStreams.State.RUNNING;
    boolean ready = state == KafkaStreams.State.RUNNING || (ranOnce && state == KafkaStreams.State.REBALANCING);
    return HealthCheckResponse.named("kafka-streams-running").status(ready).withData("state", state.name()).build();
  }
}
