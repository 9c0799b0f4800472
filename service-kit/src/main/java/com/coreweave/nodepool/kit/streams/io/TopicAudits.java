package com.coreweave.nodepool.kit.streams.io;

import com.coreweave.nodepool.kit.audit.AuditEvent;
import com.coreweave.nodepool.kit.audit.AuditEvents;
import com.coreweave.nodepool.kit.audit.AuditLog;
import com.coreweave.nodepool.kit.audit.RefusalTally;
import com.coreweave.nodepool.kit.streams.io.RecordParse.Noted;
import com.coreweave.nodepool.kit.streams.io.RecordParse.Parsed;
import com.coreweave.nodepool.schema.topics.AuditKeys;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Writes the audit events {@link RecordParse} noted to {@code audit-events}, in the task's transaction, and to the
 * local file: each accepted record's, and the refused ones summarized per principal and reason ({@link RefusalTally}).
 * The counts of an interval are kept in memory: a crash loses at most that interval's summary, never a recorded event.
 */
final class TopicAudits<T> implements Processor<String, Parsed<T>, String, byte[]> {

    private final String step;
    private final Clock clock;
    private final RefusalTally tally = new RefusalTally();
    private ProcessorContext<String, byte[]> context;
    /** The summary timer, scheduled only while refusals are counted (a punctuation commits the task). */
    private Cancellable summarizing;

    TopicAudits(String step, Clock clock) {
        this.step = step;
        this.clock = clock;
    }

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
        this.context = context;
    }

    @Override
    public void process(Record<String, Parsed<T>> record) {
        Noted noted = record.value().audit();
        if (noted == null) {
            return;
        }
        if (noted.refusal() && !tally.admit(noted.caller(), noted.event(), wallClock())) {
            if (summarizing == null) {
                summarizing = context.schedule(
                        RefusalTally.INTERVAL.dividedBy(2), PunctuationType.WALL_CLOCK_TIME, t -> summarize());
            }
            return;
        }
        write(noted.event());
    }

    private void summarize() {
        tally.due(wallClock(), step + "-" + context.taskId() + "-" + clock.millis())
                .forEach(this::write);
        if (tally.idle()) {
            summarizing.cancel();
            summarizing = null;
        }
    }

    /** The time the summary timer runs on (a test driver's wall clock in tests). */
    private Instant wallClock() {
        return Instant.ofEpochMilli(context.currentSystemTimeMs());
    }

    private void write(AuditEvent event) {
        String line = AuditLog.write(event);
        if (line == null) {
            return;
        }
        String org = event.annotations() == null ? null : event.annotations().get(AuditEvents.ORG);
        context.forward(new Record<>(AuditKeys.of(org), line.getBytes(StandardCharsets.UTF_8), clock.millis()));
    }
}
