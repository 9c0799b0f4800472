package com.coreweave.nodepool.systemtest.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Where the scale run puts its pools and nodes: as few ledgers (zone × instance type, in catalogue order) as hold the
 * nodes at no more than {@code maxLedger} machines each, pools round-robin over those ledgers and the orgs, and each
 * ledger's machines shared evenly by its pools. A ledger the capacity-service holds smaller than planned
 * ({@link #limitLedger}) shares what it has, so every pool still exists and can reach TargetMet, with fewer nodes.
 */
final class ScalePlan {

    /** The sizes asked for: {@code -Dbench.scale-pools}, {@code -nodes}, {@code -orgs}, {@code -max-ledger}. */
    record Sizes(int pools, long nodes, int orgCount, int maxLedger) {

        static Sizes fromSettings() {
            return new Sizes(
                    Settings.integer("scale-pools", 100_000), Long.parseLong(Settings.text("scale-nodes", "1000000")),
                    Settings.integer("scale-orgs", 10), Settings.integer("scale-max-ledger", 50_000));
        }

        List<String> orgs() {
            return IntStream.range(0, orgCount).mapToObj(i -> "scale-org-" + i).toList();
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "%,d pools, %,d nodes, %d orgs, ledgers of at most %,d machines",
                    pools,
                    nodes,
                    orgCount,
                    maxLedger);
        }
    }

    private final Sizes sizes;
    private final List<String> orgs;
    private final List<String> ledgers;
    private final int[] machines;
    private final List<String> notes = new ArrayList<>();

    private ScalePlan(Sizes sizes, List<String> ledgers, int[] machines) {
        this.sizes = sizes;
        this.orgs = sizes.orgs();
        this.ledgers = ledgers;
        this.machines = machines;
    }

    /** The plan over the catalogue's ledgers ({@code <zone>/<type>}). */
    static ScalePlan over(Sizes sizes, List<String> catalogue) {
        int needed =
                (int) Math.max(1, Math.min(sizes.pools(), (sizes.nodes() + sizes.maxLedger() - 1) / sizes.maxLedger()));
        List<String> chosen = catalogue.subList(0, Math.min(needed, catalogue.size()));
        int[] machines = new int[chosen.size()];
        for (int l = 0; l < machines.length; l++) {
            machines[l] = (int) share(sizes.nodes(), machines.length, l);
        }
        ScalePlan plan = new ScalePlan(sizes, List.copyOf(chosen), machines);
        if (needed > catalogue.size()) {
            plan.notes.add(String.format(
                    Locale.ROOT,
                    "%,d nodes need %d ledgers of at most %,d machines; the catalogue "
                            + "has %d, so each holds up to %,d",
                    sizes.nodes(),
                    needed,
                    sizes.maxLedger(),
                    catalogue.size(),
                    machines[0]));
        }
        return plan;
    }

    /** {@code total} split into {@code parts} as evenly as whole numbers go: part {@code index}'s share. */
    static long share(long total, int parts, int index) {
        return total / parts + (index < total % parts ? 1 : 0);
    }

    Sizes sizes() {
        return sizes;
    }

    List<String> ledgers() {
        return ledgers;
    }

    List<String> notes() {
        return notes;
    }

    int machines(int ledger) {
        return machines[ledger];
    }

    /** The ledger holds only {@code accepted} machines: its pools share those. */
    void limitLedger(int ledger, int accepted) {
        machines[ledger] = Math.min(machines[ledger], accepted);
    }

    int pools() {
        return sizes.pools();
    }

    String name(int pool) {
        return String.format(Locale.ROOT, "s-%06d", pool);
    }

    String org(int pool) {
        return orgs.get((pool / ledgers.size()) % orgs.size());
    }

    String ledgerOf(int pool) {
        return ledgers.get(pool % ledgers.size());
    }

    int nodes(int pool) {
        int ledger = pool % ledgers.size();
        return (int) share(machines[ledger], (int) share(sizes.pools(), ledgers.size(), ledger), pool / ledgers.size());
    }

    long totalNodes() {
        return IntStream.range(0, ledgers.size())
                .filter(l -> share(sizes.pools(), ledgers.size(), l) > 0)
                .mapToLong(l -> machines[l])
                .sum();
    }

    int poolsOf(String org) {
        return (int) IntStream.range(0, sizes.pools())
                .filter(i -> org(i).equals(org))
                .count();
    }

    String summary() {
        return String.format(
                Locale.ROOT,
                "%,d pools of %s nodes (%,d nodes) over %d orgs and %d ledgers (zone × type) " + "of %,d–%,d machines",
                sizes.pools(),
                poolSizes(),
                totalNodes(),
                sizes.orgCount(),
                ledgers.size(),
                IntStream.of(machines).min().orElse(0),
                IntStream.of(machines).max().orElse(0));
    }

    /** The smallest and the largest pool, in nodes. */
    private String poolSizes() {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int l = 0; l < ledgers.size(); l++) {
            long pools = share(sizes.pools(), ledgers.size(), l);
            if (pools > 0) {
                min = Math.min(min, machines[l] / pools);
                max = Math.max(max, (machines[l] + pools - 1) / pools);
            }
        }
        return min == max ? String.valueOf(min) : min + "–" + max;
    }
}
