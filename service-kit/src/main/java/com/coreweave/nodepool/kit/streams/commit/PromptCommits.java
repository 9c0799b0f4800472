package com.coreweave.nodepool.kit.streams.commit;

import com.coreweave.nodepool.kit.deadletter.DeadLetteringProducer;
import com.coreweave.nodepool.kit.streams.layer.ProcessorLayer;
import com.coreweave.nodepool.kit.streams.thread.CommitPacing;
import com.coreweave.nodepool.kit.streams.thread.StreamThreadState;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;

/**
 * Commits a record promptly when its service has no backlog ({@link CommitPacing}): the stream thread's main consumer
 * ({@link PollWatchingConsumer}, given to Kafka Streams by {@code PromptCommitClients}) tells the thread's pacing
 * whether each poll left it caught up, its producer ({@link SendWatchingProducer}) whether anything written waits for a
 * commit, and the processors of a topology built by {@code ProcessorLayers.streamsBuilder()} ask Streams to commit once
 * they have processed the last record of such a poll. Under exactly-once a record is visible downstream only once
 * committed, so this is what a hop costs one pool at a time: a few ms instead of up to {@code commit.interval.ms}
 * (docs/benchmarks.md).
 */
public final class PromptCommits implements ProcessorWrapper {

    /** This stream thread's pacing. */
    static CommitPacing pacing() {
        return StreamThreadState.current().pacing();
    }

    /**
     * Runs {@code action} on this stream thread once its open transaction has committed (not if it fails), e.g. to
     * answer a caller of this process waiting for what the transaction writes. Only with prompt commits (the thread's
     * producer reports its commits); a caller must also learn it another way.
     */
    public static void afterCommit(Runnable action) {
        pacing().afterCommit(action);
    }

    @Override
    public <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> wrapProcessorSupplier(
            String name, ProcessorSupplier<KIn, VIn, KOut, VOut> supplier) {
        return ProcessorLayer.around(supplier, Prompt::new);
    }

    @Override
    public <KIn, VIn, VOut> WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> wrapFixedKeyProcessorSupplier(
            String name, FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier) {
        return ProcessorLayer.aroundFixedKey(supplier, PromptFixedKey::new);
    }

    /**
     * Processes one input record, then asks Streams to commit if it was the last of a caught-up poll and something
     * awaited was written. Records a punctuator forwards have no input position and are not counted.
     */
    private static void process(Optional<RecordMetadata> input, Runnable process, Runnable commit) {
        // A punctuator's records come with a position of no topic (Streams 4.1), not with none.
        boolean last = input.filter(at -> at.topic() != null)
                .map(at -> pacing().processing(at.topic(), at.partition(), at.offset()))
                .orElse(false);
        process.run();
        if (last && pacing().awaitedWrites()) {
            commit.run();
        }
    }

    private static final class Prompt<KIn, VIn, KOut, VOut> implements Processor<KIn, VIn, KOut, VOut> {
        private final Processor<KIn, VIn, KOut, VOut> delegate;
        private ProcessorContext<KOut, VOut> context;

        Prompt(Processor<KIn, VIn, KOut, VOut> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void init(ProcessorContext<KOut, VOut> context) {
            this.context = context;
            delegate.init(context);
        }

        @Override
        public void process(Record<KIn, VIn> record) {
            PromptCommits.process(context.recordMetadata(), () -> delegate.process(record), context::commit);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private static final class PromptFixedKey<KIn, VIn, VOut> implements FixedKeyProcessor<KIn, VIn, VOut> {
        private final FixedKeyProcessor<KIn, VIn, VOut> delegate;
        private FixedKeyProcessorContext<KIn, VOut> context;

        PromptFixedKey(FixedKeyProcessor<KIn, VIn, VOut> delegate) {
            this.delegate = delegate;
        }

        @Override
        public void init(FixedKeyProcessorContext<KIn, VOut> context) {
            this.context = context;
            delegate.init(context);
        }

        @Override
        public void process(FixedKeyRecord<KIn, VIn> record) {
            PromptCommits.process(context.recordMetadata(), () -> delegate.process(record), context::commit);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    /** The producer of a stream thread: reports to that thread's pacing what is being written. */
    public static final class SendWatchingProducer extends DeadLetteringProducer {

        public SendWatchingProducer(Map<String, Object> config, MeterRegistry registry) {
            super(config, registry);
        }

        @Override
        public Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<byte[], byte[]> record, Callback callback) {
            pacing().wrote(record.topic());
            return super.send(record, callback);
        }

        @Override
        public void commitTransaction() {
            try {
                super.commitTransaction();
            } catch (RuntimeException e) {
                pacing().aborted();
                throw e;
            }
            pacing().committed();
        }

        @Override
        public void abortTransaction() {
            pacing().aborted();
            super.abortTransaction();
        }
    }

    /** The main consumer of a stream thread: reports each poll to that thread's pacing. */
    public static final class PollWatchingConsumer extends KafkaConsumer<byte[], byte[]> {

        public PollWatchingConsumer(Map<String, Object> config) {
            super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
            pacing().polled(records.count(), !records.isEmpty() && caughtUp());
            return records;
        }

        /**
         * At most one offset left on any assigned partition: an upstream transaction's commit marker takes an offset of
         * each partition it wrote to, and is fetched after its records. (A partition not fetched yet counts as none.)
         */
        private boolean caughtUp() {
            return caughtUp(assignment().stream().map(this::currentLag).toList());
        }

        /** Whether partitions with {@code lags} (empty: not fetched yet) leave at most one offset each. */
        static boolean caughtUp(Collection<OptionalLong> lags) {
            for (OptionalLong lag : lags) {
                if (lag.orElse(0) > 1) {
                    return false;
                }
            }
            return true;
        }
    }
}
