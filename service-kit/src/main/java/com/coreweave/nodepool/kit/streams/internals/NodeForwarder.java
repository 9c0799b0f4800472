package com.coreweave.nodepool.kit.streams.internals;

import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;

/**
 * Forwards records as from one processor's node when Streams calls back outside that processor's {@code process}: a
 * cache flush or a commit hook, which run with another node (or none) current, as Streams' own KTable flush listener
 * and punctuators do.
 */
public final class NodeForwarder<V> {

    private final InternalProcessorContext<String, V> streams;
    // The public context has no notion of the current node: only Streams' internal one can name and restore it.
    private final ProcessorNode<?, ?, ?, ?> node;

    private NodeForwarder(InternalProcessorContext<String, V> streams) {
        this.streams = streams;
        this.node = streams.currentNode();
    }

    /**
     * Forwards as from the processor whose {@code init} is calling (its node is current then).
     *
     * @throws IllegalStateException when {@code context} is not Streams' own (a mock context)
     */
    public static <V> NodeForwarder<V> of(ProcessorContext<String, V> context) {
        if (!(context instanceof InternalProcessorContext<String, V> streams)) {
            throw new IllegalStateException(
                    "forwarding outside process() needs Kafka Streams' own processor context, not "
                            + context.getClass().getName());
        }
        return new NodeForwarder<>(streams);
    }

    /** Forwards {@code record} from the processor's node, in the record context current now. */
    public void forward(Record<String, V> record) {
        ProcessorNode<?, ?, ?, ?> previous = streams.currentNode();
        streams.setCurrentNode(node);
        try {
            streams.forward(record);
        } finally {
            streams.setCurrentNode(previous);
        }
    }

    /** Forwards each of {@code records} from the processor's node, each with a record context of no input record. */
    public void forwardWithoutInput(List<Record<String, V>> records) {
        if (records.isEmpty()) {
            return;
        }
        ProcessorNode<?, ?, ?, ?> previousNode = streams.currentNode();
        // A record context of no input (offset and partition -1), as a punctuator's: no public constructor makes one.
        ProcessorRecordContext previousContext = streams.recordContext();
        streams.setCurrentNode(node);
        try {
            for (Record<String, V> record : records) {
                streams.setRecordContext(
                        new ProcessorRecordContext(record.timestamp(), -1, -1, null, StreamsInternals.headers()));
                streams.forward(record);
            }
        } finally {
            streams.setRecordContext(previousContext);
            streams.setCurrentNode(previousNode);
        }
    }

    /** The name of the node records are forwarded from. */
    public String nodeName() {
        return node.name();
    }
}
