package com.coreweave.nodepool.capacity.rest;

import com.coreweave.nodepool.capacity.config.CapacitySettings;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.events.FleetChangeRequested;
import com.coreweave.nodepool.schema.topics.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Optional;

/**
 * Writes an operator's fleet change to {@code fleet-change-requested} (the ledger is its only reader and applies
 * changes in order) and waits until the ledger has applied it, so the caller learns what happened.
 */
@ApplicationScoped
public class FleetWrites {

    @Inject
    RecordPublisher publisher;

    @Inject
    LedgerReads reads;

    @Inject
    CapacitySettings settings;

    /** What became of a change: its outcome and the ledger after it, or empty when it is not applied yet. */
    public Optional<LedgerReads.Applied> submit(FleetChangeRequested change) {
        publisher.publish(Topics.FLEET_CHANGE_REQUESTED.name(), change.key().toString(), change);
        Instant deadline = Instant.now().plus(settings.fleetChangeTimeout());
        while (true) {
            try {
                Optional<LedgerReads.Applied> applied = reads.applied(change.key(), change.requestId());
                if (applied.isPresent()) {
                    return applied;
                }
            } catch (ApiException e) {
                // The ledgers may be rebalancing right after a start; the change is durable, so keep looking until the
                // end.
                if (e.status().getCode() != 503) {
                    throw e;
                }
            }
            if (Instant.now().isAfter(deadline)) {
                return Optional.empty();
            }
            pause();
        }
    }

    private void pause() {
        try {
            Thread.sleep(settings.fleetChangePollInterval().toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while waiting for the ledger");
        }
    }
}
