package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.PlatformValidator;
import com.coreweave.nodepool.api.domain.PoolDecider;
import com.coreweave.nodepool.api.domain.PoolRequest;
import com.coreweave.nodepool.api.domain.PoolView;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.CloudEvent;
import com.coreweave.nodepool.schema.events.NodePoolRequested;
import com.coreweave.nodepool.schema.events.NodePoolRequested.Operation;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.events.RequestDecided;
import com.coreweave.nodepool.schema.resource.NodePool;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * A REST write goes the same way as a request a platform team publishes: a {@code NodePoolRequested} CloudEvent on
 * {@code nodepool-requested}, decided by the pool processor. The call waits for that decision and answers with it.
 */
@ApplicationScoped
public class PoolWrites {

  @Inject
  RecordPublisher publisher;

  @Inject
  DecisionWaiter waiter;

  @Inject
  ApiSettings settings;

  @Inject
  Clock clock;

  @Inject
  PoolReads reads;

  /**
   * Publishes the request and returns the pool processor's accepted answer; a refusal becomes the matching
   * {@link ApiException}. With an {@code idempotencyKey}, a repeated call gets the first call's answer.
   */
  public RequestDecided submit(PoolKey key, Operation operation, NodePool manifest, String idempotencyKey,
                               WriteOptions options) {
    if (options.dryRun()) {
      return dryRun(key, operation, manifest, options.authorization);
    }
    if (!waiter.ready()) {
      throw ApiException.unavailable("the API is starting; retry shortly");
    }
    String id = idempotencyKey == null || idempotencyKey.isBlank() ? UUID.randomUUID().toString()
        : "idempotency-key:" + idempotencyKey;
    CloudEvent<NodePoolRequested> event = CloudEvent.of(id, PoolRequest.REST_SOURCE, NodePoolRequested.TYPE,
        key.toString(), clock.instant(), new NodePoolRequested(operation, manifest));
    var answer = waiter.expect(id);
    publisher.publish(Topics.NODEPOOL_REQUESTED.name(), key.toString(), event);
    RequestDecided decided = waiter.await(id, answer, settings.requestTimeout());
    if (decided == null) {
      throw ApiException.timeout("the request " + id + " was written but not decided within "
          + settings.requestTimeout().toSeconds() + "s; it may still take effect");
    }
    if (decided.outcome() == RequestDecided.Outcome.REJECTED) {
      throw new ApiException(decided.error());
    }
    return decided;
  }

  /**
   * Decides the request here, exactly as the pool processor would against the pool as stored, and stores nothing:
   * what {@code dryRun=All} (kubectl's --dry-run=server, kubectl diff) asks for.
   */
  private RequestDecided dryRun(PoolKey key, Operation operation, NodePool manifest, String authorization) {
    PoolView view = reads.view(key, authorization).orElse(null);
    Instant now = clock.instant();
    PoolRequest request = new PoolRequest("dry-run:" + UUID.randomUUID(), PoolRequest.REST_SOURCE, key, operation,
        manifest, now, null);
    String version = view == null ? null : view.version();
    boolean catalogued = !reads.instanceTypes().isEmpty();
    PoolDecider.Decision decision = PoolDecider.decide(request, view == null ? null : view.accepted(),
        new PoolDecider.WriteContext(now, version, UUID.randomUUID().toString(), settings.defaultZone(), version),
        spec -> PlatformValidator.judge(spec, type -> reads.instanceType(type).orElse(null), catalogued));
    RequestDecided answer = decision.answer();
    if (answer.outcome() == RequestDecided.Outcome.REJECTED) {
      throw new ApiException(answer.error());
    }
    // The pool as it would be stored, with the status it has now (kubectl diff compares whole objects).
    return view == null || answer.nodePool() == null ? answer : new RequestDecided(answer.requestId(),
        answer.outcome(), answer.code(), answer.nodePool().withStatus(view.published().status()), null,
        answer.decidedAt());
  }
}
