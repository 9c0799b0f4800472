package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.schema.topics.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The exactly-once hops a create crosses from {@code nodepool-requested} to TargetMet on {@code nodepool-status}: one
 * per Kafka Streams sub-topology on the way, each named by the service that runs it and the topic it writes for the
 * next one (one commit of that service's transaction each). The list is the design (docs/flow.md); {@link #check} holds
 * it against what a pipeline run wrote, so a hop added or removed in a service shows in the report instead of silently
 * skewing the baseline (docs/benchmarks.md says how to update the list).
 */
final class CreatePath {

    /** One hop: the service whose sub-topology it is, and the topic that sub-topology writes for the next one. */
    record Hop(String service, String writes) {}

    static final List<Hop> HOPS = List.of(
            new Hop("nodepool-api-service", Topics.QUOTA_DEMANDED.name()),
            new Hop("quota-service", Topics.CAPACITY_DEMANDED.name()),
            new Hop("capacity-service", Topics.CAPACITY_CHECKED.name()),
            new Hop("provisioner-service", Topics.NODEPOOL_NODES_CHANGED.name()),
            new Hop("nodepool-api-service", Topics.NODEPOOL_STATUS.name()));

    /** The hops a run showed, and what differed from {@link #HOPS} (empty when the list held). */
    record Checked(List<Hop> hops, List<String> differences) {

        int k() {
            return hops.size();
        }

        String summary() {
            return differences.isEmpty()
                    ? "k = " + k() + ", each hop's topic grew by at least one offset per pool in the pipeline phase"
                    : "k = " + k() + " from this run (docs/benchmarks.md: update CreatePath): "
                            + String.join("; ", differences);
        }
    }

    private CreatePath() {}

    /** The listed path, unchecked (no pipeline phase ran). */
    static Checked unchecked() {
        return new Checked(HOPS, List.of("not checked: the pipeline phase did not run"));
    }

    /**
     * Holds the list against the topics the pipeline phase wrote for {@code pools} creates: a listed hop whose topic
     * grew by fewer offsets than pools is not crossed by every create (dropped); a repartition topic of a service that
     * grew by at least that much, and is not listed, is a hop the list misses (added, after the service's other hops).
     */
    static Checked check(BrokerWrites.Delta written, int pools) {
        List<Hop> hops = new ArrayList<>();
        List<String> differences = new ArrayList<>();
        for (Hop hop : HOPS) {
            long offsets = written.offsetsOf(hop.writes());
            if (offsets >= pools) {
                hops.add(hop);
            } else {
                differences.add(String.format(
                        Locale.ROOT,
                        "listed hop %s → `%s` grew by only %,d offsets for %,d pools",
                        hop.service(),
                        hop.writes(),
                        offsets,
                        pools));
            }
        }
        for (BrokerWrites.Growth growth : written.topics()) {
            String service = StackProcesses.SERVICES.stream()
                    .filter(s -> growth.topic().startsWith(s + "-"))
                    .findFirst()
                    .orElse(null);
            boolean listed = HOPS.stream().anyMatch(h -> h.writes().equals(growth.topic()));
            if (service != null && !listed && growth.topic().endsWith("-repartition") && growth.offsets() >= pools) {
                int after = 0;
                for (int i = 0; i < hops.size(); i++) {
                    after = hops.get(i).service().equals(service) ? i + 1 : after;
                }
                hops.add(after, new Hop(service, growth.topic()));
                differences.add(String.format(
                        Locale.ROOT,
                        "unlisted hop %s → `%s` grew by %,d offsets for %,d pools",
                        service,
                        growth.topic(),
                        growth.offsets(),
                        pools));
            }
        }
        return new Checked(List.copyOf(hops), List.copyOf(differences));
    }
}
