package com.coreweave.nodepool.preemption;

import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PreemptionFact;
import com.coreweave.nodepool.schema.events.RecordedEvent;
import com.coreweave.nodepool.schema.events.RecordedEvents;
import com.coreweave.nodepool.schema.topics.Topics;
import com.coreweave.nodepool.testing.TopicProbe;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/** Reads what the preemption-service published for one pool, as the provisioner and the api-service would. */
final class PreemptionFacts {

    private PreemptionFacts() {}

    /** The pool's timeline facts, once {@code done} holds for them. */
    static List<PreemptionFact> progressed(
            TopicProbe probe, String poolKey, Predicate<List<PreemptionFact>> done, Duration timeout) {
        probe.readUntil(
                Topics.SPOT_PREEMPTION_PROGRESSED.name(),
                read -> done.test(ofPool(read, poolKey, PreemptionFact.class)),
                timeout);
        return ofPool(probe.readAll(Topics.SPOT_PREEMPTION_PROGRESSED.name()), poolKey, PreemptionFact.class);
    }

    /** The pool's recorded events, once {@code done} holds for them. */
    static List<RecordedEvent> events(
            TopicProbe probe, String poolKey, Predicate<List<RecordedEvent>> done, Duration timeout) {
        probe.readUntil(Topics.NODEPOOL_EVENT_RECORDED.name(), read -> done.test(eventsOf(read, poolKey)), timeout);
        return eventsOf(probe.readAll(Topics.NODEPOOL_EVENT_RECORDED.name()), poolKey);
    }

    private static List<RecordedEvent> eventsOf(List<TopicProbe.Read> read, String poolKey) {
        return ofPool(read, poolKey, RecordedEvents.class).stream()
                .flatMap(r -> r.events().stream())
                .toList();
    }

    static List<PreemptionFact> ofNode(List<PreemptionFact> facts, String node) {
        return facts.stream().filter(f -> f.node().equals(node)).toList();
    }

    static <T extends PreemptionFact> T only(List<PreemptionFact> facts, String node, Class<T> type) {
        List<T> found = ofNode(facts, node).stream()
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
        if (found.size() != 1) {
            throw new AssertionError("expected one " + type.getSimpleName() + " for " + node + ", got " + found);
        }
        return found.getFirst();
    }

    static Predicate<List<PreemptionFact>> preempted(String... nodes) {
        return facts -> List.of(nodes).stream()
                .allMatch(node -> facts.stream()
                        .anyMatch(f -> f.node().equals(node) && f instanceof PreemptionFact.NodePreempted));
    }

    static Predicate<List<PreemptionFact>> reached(String node, Class<? extends PreemptionFact> type) {
        return facts -> facts.stream().anyMatch(f -> f.node().equals(node) && type.isInstance(f));
    }

    static List<String> phases(List<PreemptionFact> facts) {
        return facts.stream().map(f -> f.getClass().getSimpleName()).toList();
    }

    private static <T> List<T> ofPool(List<TopicProbe.Read> read, String poolKey, Class<T> type) {
        return read.stream()
                .filter(r -> poolKey.equals(r.key()))
                .map(r -> Json.read(r.value(), type))
                .toList();
    }
}
