package com.coreweave.nodepool.systemtest.bench;

import java.util.List;
import java.util.Locale;

/**
 * Issue 12's targets for a default {@code ./stack bench}, each beside the figure this run measured, a met / short mark,
 * and the baseline chain's figure with our figure as a ratio to it (so runs on other machines compare); then issue
 * 25's: the time a big pool takes to reach TargetMet (no target set) and the largest record (Kafka's 1 MiB).
 */
final class Targets {

    static final double PIPELINE_POOLS_PER_SECOND = 600;
    static final double TARGET_MET_P99_MS = 150;
    static final double POST_P99_MS = 40;
    static final double CPU_MS_PER_POOL = 3.5;
    /** Offsets and bytes written per pool before issue 12 (docs/benchmarks.md, "before"); the target is a third. */
    static final double BEFORE_OFFSETS_PER_POOL = 76;

    static final double BEFORE_BYTES_PER_POOL = 146_000;
    private static final double NO_TARGET = Double.NaN;

    /**
     * One figure: what was measured (NaN: not measured, and {@code missing} says why), the target (NaN: none set) and
     * whether it is a floor or a ceiling, the baseline's comparable figure (NaN: none), the unit, and how it was
     * measured.
     */
    record Line(
            String figure,
            double measured,
            double target,
            boolean floor,
            double baseline,
            Unit unit,
            String how,
            String missing) {

        Line(String figure, double measured, double target, boolean floor, double baseline, Unit unit, String how) {
            this(figure, measured, target, floor, baseline, unit, how, "not measured");
        }

        String mark() {
            if (Double.isNaN(measured)) {
                return missing;
            }
            if (Double.isNaN(target)) {
                return "reported";
            }
            return (floor ? measured >= target : measured <= target) ? "met" : "**short**";
        }

        String ratio() {
            return Double.isNaN(measured) || Double.isNaN(baseline) || baseline == 0
                    ? "–"
                    : String.format(Locale.ROOT, "%.2f×", measured / baseline);
        }
    }

    /** How a figure prints. */
    enum Unit {
        PER_SECOND("/s"),
        MILLIS("ms"),
        SECONDS("s"),
        COUNT(""),
        BYTES("B");

        private final String suffix;

        Unit(String suffix) {
            this.suffix = suffix;
        }

        String format(double value) {
            if (Double.isNaN(value)) {
                return "–";
            }
            if (this == BYTES) {
                return value >= 1024 * 1024
                        ? String.format(Locale.ROOT, "%.2f MiB", value / (1024 * 1024))
                        : value >= 10_240
                                ? String.format(Locale.ROOT, "%.1f KiB", value / 1024)
                                : String.format(Locale.ROOT, "%,.0f B", value);
            }
            String number = value >= 100
                    ? String.format(Locale.ROOT, "%,.0f", value)
                    : String.format(Locale.ROOT, "%.1f", value);
            return suffix.isEmpty() ? number : number + " " + suffix;
        }
    }

    /** What a run measured for the targets; any may be missing (null, NaN) when its phase did not run. */
    record Measured(
            int pools,
            int nodes,
            double pipelineRate,
            Samples postToTargetMet,
            Samples postAnswered,
            PhaseCost pipeline,
            Baseline.Result baseline,
            BigPool bigPool,
            RecordSizes records) {}

    private Targets() {}

    /** Issue 12's figures from a run, each with the baseline's comparable figure, then issue 25's. */
    static List<Line> lines(Measured run) {
        PhaseCost cost = run.pipeline();
        Baseline.Result baseline = run.baseline();
        PhaseCost chain = baseline == null ? null : baseline.cost();
        double none = Double.NaN;
        return List.of(
                new Line(
                        "pipeline: " + run.pools() + " pools of " + run.nodes()
                                + " node(s), all five services (pools/s)",
                        run.pipelineRate(),
                        PIPELINE_POOLS_PER_SECOND,
                        true,
                        baseline == null ? none : baseline.rate(),
                        Unit.PER_SECOND,
                        "4c: pools / seconds from the first publish to `nodepool-requested` until the last is TargetMet; "
                                + "baseline: records / seconds until the last left hop k (Ba)"),
                new Line(
                        "POST → TargetMet p99 (1-node pool, boot 0, one at a time)",
                        p99(run.postToTargetMet()),
                        TARGET_MET_P99_MS,
                        false,
                        baseline == null ? none : p99(baseline.endToEnd()),
                        Unit.MILLIS,
                        "3a, " + count(run.postToTargetMet())
                                + " pools (nearest rank: under 100 samples, the slowest); "
                                + "baseline: one record through all k hops (Bb)"),
                new Line(
                        "POST answered p99",
                        p99(run.postAnswered()),
                        POST_P99_MS,
                        false,
                        baseline == null ? none : p99(baseline.firstHop()),
                        Unit.MILLIS,
                        "1a, " + count(run.postAnswered())
                                + " sequential creates, one client; baseline: one record through its "
                                + "first hop (Bc)"),
                new Line(
                        "CPU per pool, all processes (ms)",
                        cost == null ? none : cost.cpuMillisPerItem(CpuMeter.STACK),
                        CPU_MS_PER_POOL,
                        false,
                        chain == null ? none : chain.cpuMillisPerItem(Baseline.PROCESSES),
                        Unit.MILLIS,
                        "4: CPU time of the broker and the five services (Linux, per process) from the first publish until the "
                                + "broker is quiet after the last TargetMet, / pools"
                                + (cost == null
                                        ? ""
                                        : "; the whole machine's busy time / pools: "
                                                + ReportTables.two(cost.machineMillisPerItem()) + " ms")
                                + "; baseline: broker + chain JVM / records"),
                new Line(
                        "records written to the broker per pool",
                        cost == null ? none : cost.offsetsPerItem(),
                        BEFORE_OFFSETS_PER_POOL / 3,
                        false,
                        chain == null ? none : chain.offsetsPerItem(),
                        Unit.COUNT,
                        "4, same span: growth of every topic's log end offset (changelogs, repartitions, `__consumer_offsets`, "
                                + "`__transaction_state`; transaction markers count) / pools; target a third of "
                                + Unit.COUNT.format(BEFORE_OFFSETS_PER_POOL) + " (the before run)"),
                new Line(
                        "bytes written to the broker per pool",
                        cost == null ? none : cost.bytesPerItem(),
                        BEFORE_BYTES_PER_POOL / 3,
                        false,
                        chain == null ? none : chain.bytesPerItem(),
                        Unit.BYTES,
                        "4, same span: growth of every topic's log on disk / pools; target a third of "
                                + Unit.BYTES.format(BEFORE_BYTES_PER_POOL) + " (the before run)"),
                bigPool(run.bigPool()),
                largestRecord(run.records()));
    }

    /** Issue 25: how long a big pool takes to reach TargetMet; no target was set, the time is reported. */
    private static Line bigPool(BigPool big) {
        String figure = "a " + String.format(Locale.ROOT, "%,d", big.nodes()) + "-node pool reaches TargetMet (s)";
        if (!big.ran()) {
            return new Line(
                    figure,
                    Double.NaN,
                    NO_TARGET,
                    false,
                    Double.NaN,
                    Unit.SECONDS,
                    "7: skipped (" + (big.nodes() == 0 ? "`big-pool-nodes=0`" : "an earlier phase failed") + ")");
        }
        return new Line(
                figure,
                big.seconds(),
                NO_TARGET,
                false,
                Double.NaN,
                Unit.SECONDS,
                "7: from sending its POST until a read_committed consumer of `nodepool-status` sees `AtTarget/TargetMet` "
                        + "with all nodes, while " + big.smallPools()
                        + " one-node pools of another org are created right after "
                        + "it; the small pools' POST → TargetMet " + big.smallSummary(),
                "**did not reach TargetMet in " + big.timeoutSeconds() + " s** (" + big.nodesGot() + ")");
    }

    /** Issue 25: no record may outgrow what Kafka's producer sends by default, written or refused for it. */
    private static Line largestRecord(RecordSizes records) {
        RecordSizes.Topic top = records == null ? null : records.largestTopic();
        RecordSizes.Refused refused = records == null ? null : records.largestRefused();
        double largest = top == null ? Double.NaN : Math.max(records.largest(), refused == null ? 0 : refused.size());
        return new Line(
                "largest record written to any topic or refused for its size (key + value + headers, "
                        + "uncompressed)",
                largest,
                RecordSizes.KAFKA_LIMIT,
                false,
                Double.NaN,
                Unit.BYTES,
                "every topic's records of the whole run, read_uncommitted, sized as the producer checks them against "
                        + "`max.request.size`"
                        + (top == null
                                ? ""
                                : "; written: " + Unit.BYTES.format(records.largest()) + " in `" + top.name + "`")
                        + (refused == null
                                ? "; none refused"
                                : "; **refused: "
                                        + Unit.BYTES.format(refused.size()) + " for `" + refused.topic() + "`** ("
                                        + refused.service()
                                        + "'s log)")
                        + " (\"Largest records\")");
    }

    private static double p99(Samples samples) {
        return samples == null ? Double.NaN : samples.percentileMillis(99);
    }

    private static int count(Samples samples) {
        return samples == null ? 0 : samples.count();
    }

    static String table(List<Line> lines, String baselineWhat) {
        StringBuilder md = new StringBuilder();
        md.append("| figure | measured | target | | baseline: ")
                .append(baselineWhat)
                .append(" | ratio to the baseline | how |\n");
        md.append("| --- | ---: | ---: | --- | ---: | ---: | --- |\n");
        for (Line line : lines) {
            md.append("| ")
                    .append(line.figure())
                    .append(" | ")
                    .append(line.unit().format(line.measured()))
                    .append(" | ")
                    .append(
                            Double.isNaN(line.target())
                                    ? "none set"
                                    : (line.floor() ? "≥ " : "≤ ") + line.unit().format(line.target()))
                    .append(" | ")
                    .append(line.mark())
                    .append(" | ")
                    .append(line.unit().format(line.baseline()))
                    .append(" | ")
                    .append(line.ratio())
                    .append(" | ")
                    .append(line.how())
                    .append(" |\n");
        }
        return md.toString();
    }
}
