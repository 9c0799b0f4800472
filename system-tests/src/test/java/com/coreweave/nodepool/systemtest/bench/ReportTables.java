package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.systemtest.harness.Stack;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Markdown tables both benchmarks' reports share: results, CPU per phase, cost per item, writes per topic. */
final class ReportTables {

    /** One line of a results table; samples may be null for a pure throughput figure. */
    record Row(String id, String figure, int n, Samples samples, String throughput, String note) {}

    private ReportTables() {}

    static String results(List<Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| # | figure | n | p50 ms | p90 ms | p99 ms | max ms | throughput | notes |\n");
        md.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Row row : rows) {
            Samples s = row.samples();
            md.append("| ")
                    .append(row.id())
                    .append(" | ")
                    .append(row.figure())
                    .append(" | ")
                    .append(row.n())
                    .append(" | ")
                    .append(s == null ? "" : Samples.ms(s.percentileMillis(50)))
                    .append(" | ")
                    .append(s == null ? "" : Samples.ms(s.percentileMillis(90)))
                    .append(" | ")
                    .append(s == null ? "" : Samples.ms(s.percentileMillis(99)))
                    .append(" | ")
                    .append(s == null ? "" : Samples.ms(s.maxMillis()))
                    .append(" | ")
                    .append(row.throughput())
                    .append(" | ")
                    .append(row.note())
                    .append(" |\n");
        }
        return md.toString();
    }

    static String cpuPerPhase(List<CpuMeter.Usage> phases) {
        StringBuilder md = new StringBuilder();
        md.append(
                "| phase | wall s | kafka | api | quota | capacity | provisioner | preemption | baseline | benchmark | "
                        + "machine busy | of which not ours | load 1m at end |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (CpuMeter.Usage u : phases) {
            md.append("| ").append(u.phase()).append(" | ").append(one(u.wall()));
            CpuMeter.COMPONENTS.forEach(
                    c -> md.append(" | ").append(one(u.seconds().get(c))));
            md.append(" | ")
                    .append(one(u.machineBusy()))
                    .append(" (")
                    .append(percent(u.machineBusy(), u.machineCapacity()))
                    .append(')');
            md.append(" | ").append(one(Math.max(0, u.machineBusy() - u.ours())));
            md.append(" | ").append(MachineInfo.fmt(u.load1())).append(" |\n");
        }
        return md.toString();
    }

    /**
     * Per item of each measured stretch: CPU of the processes that did the work ({@code whose}), of each of them, of
     * the whole machine, and offsets and bytes written to the broker.
     */
    static String costPerItem(Map<String, PhaseCost> costs, Map<String, List<String>> whose) {
        StringBuilder md = new StringBuilder();
        md.append(
                "| what | items | CPU ms per item (whose) | kafka | api | quota | capacity | provisioner | preemption "
                        + "| baseline | machine busy ms per item | offsets per item | bytes per item |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        costs.forEach((what, cost) -> {
            List<String> components = whose.get(what);
            md.append("| ")
                    .append(what)
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", cost.items()))
                    .append(" | ")
                    .append(two(cost.cpuMillisPerItem(components)))
                    .append(" (")
                    .append(
                            components.size() == CpuMeter.STACK.size()
                                    ? "broker + 5 services"
                                    : String.join(" + ", components))
                    .append(')');
            CpuMeter.COMPONENTS.stream()
                    .filter(c -> !c.equals(CpuMeter.BENCHMARK))
                    .forEach(c -> md.append(" | ").append(two(cost.cpuMillisPerItem(List.of(c)))));
            md.append(" | ")
                    .append(two(cost.machineMillisPerItem()))
                    .append(" | ")
                    .append(one(cost.offsetsPerItem()))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f", cost.bytesPerItem()))
                    .append(" |\n");
        });
        return md.toString();
    }

    /** The topics a stretch wrote to, biggest first, per item. */
    static String writtenPerTopic(PhaseCost cost, int limit) {
        StringBuilder md = new StringBuilder();
        md.append("| topic | offsets per item | bytes per item | bytes per offset | share of the bytes |\n");
        md.append("| --- | ---: | ---: | ---: | ---: |\n");
        cost.written().topics().stream()
                .limit(limit)
                .forEach(g -> md.append("| `")
                        .append(g.topic())
                        .append("` | ")
                        .append(one((double) g.offsets() / cost.items()))
                        .append(" | ")
                        .append(String.format(Locale.ROOT, "%,.0f", (double) g.bytes() / cost.items()))
                        .append(" | ")
                        .append(g.offsets() == 0 ? "–" : String.format(Locale.ROOT, "%,d", g.bytes() / g.offsets()))
                        .append(" | ")
                        .append(percent(g.bytes(), cost.written().bytes()))
                        .append(" |\n"));
        int rest = cost.written().topics().size() - limit;
        if (rest > 0) {
            long offsets = cost.written().topics().stream()
                    .skip(limit)
                    .mapToLong(BrokerWrites.Growth::offsets)
                    .sum();
            long bytes = cost.written().topics().stream()
                    .skip(limit)
                    .mapToLong(BrokerWrites.Growth::bytes)
                    .sum();
            md.append("| ")
                    .append(rest)
                    .append(" more topics | ")
                    .append(one((double) offsets / cost.items()))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%,.0f", (double) bytes / cost.items()))
                    .append(" | | ")
                    .append(percent(bytes, cost.written().bytes()))
                    .append(" |\n");
        }
        md.append("| **all** | **")
                .append(one(cost.offsetsPerItem()))
                .append("** | **")
                .append(String.format(Locale.ROOT, "%,.0f", cost.bytesPerItem()))
                .append("** | | 100% |\n");
        return md.toString();
    }

    /** The report's notes, if any, and where the services' logs of the run are. */
    static String footer(List<String> notes, Stack stack) {
        StringBuilder md = new StringBuilder();
        if (!notes.isEmpty()) {
            md.append("\n## Notes\n\n");
            notes.forEach(n -> md.append("- ")
                    .append(n.replace('\n', ' ').replace("|", "\\|"))
                    .append('\n'));
        }
        return md.append("\nService logs of this run: `")
                .append(stack == null ? "?" : stack.logs())
                .append("`\n")
                .toString();
    }

    static String one(Double value) {
        return value == null || value.isNaN() ? "?" : String.format(Locale.ROOT, "%.1f", value);
    }

    static String two(double value) {
        return Double.isNaN(value) ? "?" : String.format(Locale.ROOT, "%.2f", value);
    }

    static String percent(double part, double whole) {
        return Double.isNaN(part) || whole <= 0 ? "?" : String.format(Locale.ROOT, "%.0f%%", 100 * part / whole);
    }
}
