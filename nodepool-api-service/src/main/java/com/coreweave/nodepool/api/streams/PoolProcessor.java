package com.coreweave.nodepool.api.streams;

import com.coreweave.nodepool.api.config.ApiSettings;
import com.coreweave.nodepool.api.domain.ConditionCensus;
import com.coreweave.nodepool.api.domain.PoolInput;
import com.coreweave.nodepool.kit.faults.InjectedFaults;
import com.coreweave.nodepool.kit.streams.io.Outbound;
import com.coreweave.nodepool.kit.streams.time.Ticker;
import com.coreweave.nodepool.schema.events.RequestDecided;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BiConsumer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The single writer of each pool's accepted state, status and events, in three parts that share its stores:
 * {@link RequestDecision} for requests, {@link StatusAggregation} for the other services' facts and recorded events,
 * {@link PoolMaintenance} on wall-clock time. Everything it changes (stores and outputs) commits in one transaction.
 */
class PoolProcessor implements Processor<String, PoolInput, String, Outbound> {

    private static final Duration REQUEST_ID_SWEEP = Duration.ofMinutes(10);

    private final ApiSettings settings;
    private final int partitions;
    private final Clock clock;
    private final BiConsumer<String, RequestDecided> answered;
    private final PoolConditionGauges conditionGauges;
    private final InjectedFaults faults;
    private ConditionCensus census;
    private int partition;
    private RequestDecision requests;
    private StatusAggregation status;

    PoolProcessor(
            ApiSettings settings,
            int partitions,
            Clock clock,
            BiConsumer<String, RequestDecided> answered,
            PoolConditionGauges conditionGauges,
            InjectedFaults faults) {
        this.faults = faults;
        this.settings = settings;
        this.partitions = partitions;
        this.clock = clock;
        this.answered = answered;
        this.conditionGauges = conditionGauges;
    }

    @Override
    public void init(ProcessorContext<String, Outbound> context) {
        partition = context.taskId().partition();
        census = conditionGauges.open(partition);
        PoolStores stores = new PoolStores(context, partitions, clock, census, faults);
        status = new StatusAggregation(stores);
        requests = new RequestDecision(stores, status, settings, clock, answered);
        PoolMaintenance maintenance = new PoolMaintenance(stores, status, settings, clock);
        Ticker revalidation = Ticker.untilDone(context, settings.revalidateInterval(), maintenance::revalidate);
        Ticker requestSweep = Ticker.untilDone(context, REQUEST_ID_SWEEP, maintenance::forgetOldRequestIds);
        Ticker eventSweep =
                Ticker.untilDone(context, eventSweep(settings.eventRetention()), maintenance::forgetDeletedPoolEvents);
        stores.onUnvalidated(revalidation::start);
        stores.onRequestRemembered(requestSweep::start);
        stores.onDeletedPoolEventsKept(eventSweep::start);
        if (stores.anyUnvalidated()) {
            revalidation.start();
        }
        if (PoolStores.any(stores.requestIds)) {
            requestSweep.start();
        }
        if (PoolStores.any(stores.deletedEvents)) {
            eventSweep.start();
        }
    }

    /** A deleted pool's Events outlive their retention by at most a quarter of it, or a minute. */
    static Duration eventSweep(Duration retention) {
        Duration quarter = retention.dividedBy(4);
        return quarter.compareTo(Duration.ofSeconds(1)) < 0
                ? Duration.ofSeconds(1)
                : quarter.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : quarter;
    }

    @Override
    public void process(Record<String, PoolInput> record) {
        Instant now = clock.instant();
        switch (record.value()) {
            case PoolInput.Requested requested ->
                requests.onRequest(record.key(), requested.request(), now, Instant.ofEpochMilli(record.timestamp()));
            case PoolInput.NodesChanged changed -> status.onFact(record.key(), changed.fact(), now);
            case PoolInput.PreemptionProgressed progressed -> status.onFact(record.key(), progressed.fact(), now);
            case PoolInput.EventsRecorded recorded ->
                recorded.recorded().events().forEach(event -> status.onEvent(record.key(), event));
        }
    }

    @Override
    public void close() {
        conditionGauges.close(partition, census);
    }
}
