package com.coreweave.nodepool.systemtest.bench;

import static com.coreweave.nodepool.systemtest.bench.Phases.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToLongFunction;
import java.util.function.Predicate;

/**
 * Offers items at rising steady rates, one step after another, and reports per step the offered and achieved rates, the
 * backlog at its middle and end and how long its items took to get through; the same for the pools and the baseline
 * chain. A step is bounded when its backlog did not grow over its second half; the sustained capacity is the highest
 * bounded step whose p99 stayed within {@link #P99_BOUND}, the bounded capacity the highest bounded step at any latency
 * (the chain commits each hop once a second, so its latency alone is seconds).
 */
final class SustainedLoad {

    /** The latency a step may reach at p99 and still count as sustained. */
    static final Duration P99_BOUND = Duration.ofSeconds(1);

    /** Sends item {@code i}, without waiting for its acknowledgement. */
    interface Sender {
        void send(int i) throws Exception;
    }

    /**
     * One step: {@code sent} items at {@code offered}/s in {@code seconds}; {@code through} got through meanwhile; the
     * backlog (sent so far and not through) at the step's middle and at its end.
     */
    record Step(int offered, int sent, double seconds, int through, int midBacklog, int backlog, Samples latency) {

        double sentRate() {
            return sent / seconds;
        }

        /** Items that got through during the step, per second (earlier steps' backlog included). */
        double achieved() {
            return through / seconds;
        }

        /**
         * Bounded: every item got through, the sender kept up, and the backlog ended at most a tenth and half a
         * second's worth above its middle (commits come in batches, so it rises and falls).
         */
        boolean bounded() {
            return !growing(offered, midBacklog, backlog) && latency.errors() == 0 && sentRate() >= offered * 0.9;
        }

        boolean sustained() {
            return bounded() && latency.percentileMillis(99) <= P99_BOUND.toMillis();
        }
    }

    private final List<Integer> rates;
    private final Duration stepLength;

    SustainedLoad(List<Integer> rates, Duration stepLength) {
        this.rates = List.copyOf(rates);
        this.stepLength = stepLength;
    }

    /** How many items the steps offer at most. */
    int items() {
        return rates.stream().mapToInt(this::count).sum();
    }

    private int count(int rate) {
        return (int) (rate * stepLength.toMillis() / 1000);
    }

    /**
     * Runs the steps, stopping after the first one whose backlog grew, then waits up to {@code drain} for everything
     * sent to get through. {@code doneAt(i)}: when item {@code i} got through (nanoTime), 0 if not yet.
     */
    List<Step> run(String what, Sender sender, IntToLongFunction doneAt, Duration drain) throws Exception {
        long[] sentAt = new long[items()];
        List<int[]> ranges = new ArrayList<>();
        List<Step> sent = new ArrayList<>();
        int next = 0;
        int throughBefore = 0;
        for (int rate : rates) {
            int first = next;
            int count = count(rate);
            int midBacklog = -1;
            long start = System.nanoTime();
            while (next < first + count) {
                long due = first + (System.nanoTime() - start) * rate / 1_000_000_000L;
                while (next <= Math.min(due, first + count - 1)) {
                    sentAt[next] = System.nanoTime();
                    sender.send(next++);
                }
                if (midBacklog < 0 && next - first >= count / 2) {
                    midBacklog = next - through(doneAt, next);
                }
                Thread.sleep(1);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            int through = through(doneAt, next);
            int backlog = next - through;
            ranges.add(new int[] {first, next});
            sent.add(new Step(rate, count, seconds, through - throughBefore, midBacklog, backlog, null));
            throughBefore = through;
            log(String.format(
                    Locale.ROOT,
                    "%s: %d/s offered, %d sent in %.1f s, backlog %d at its middle, %d at its end",
                    what,
                    rate,
                    count,
                    seconds,
                    midBacklog,
                    backlog));
            if (growing(rate, midBacklog, backlog)) {
                log(what + ": the backlog grew, no higher step");
                break;
            }
        }
        long deadline = System.nanoTime() + drain.toNanos();
        while (through(doneAt, next) < next && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        List<Step> steps = new ArrayList<>();
        for (int s = 0; s < sent.size(); s++) {
            Samples latency = new Samples();
            for (int i = ranges.get(s)[0]; i < ranges.get(s)[1]; i++) {
                long done = doneAt.applyAsLong(i);
                if (done == 0) {
                    latency.error();
                } else {
                    latency.add(done - sentAt[i]);
                }
            }
            Step step = sent.get(s);
            steps.add(new Step(
                    step.offered(),
                    step.sent(),
                    step.seconds(),
                    step.through(),
                    step.midBacklog(),
                    step.backlog(),
                    latency));
        }
        return steps;
    }

    private static boolean growing(int rate, int midBacklog, int backlog) {
        return backlog > midBacklog * 1.1 + Math.max(rate / 2.0, 10);
    }

    private static int through(IntToLongFunction doneAt, int sent) {
        int through = 0;
        for (int i = 0; i < sent; i++) {
            through += doneAt.applyAsLong(i) != 0 ? 1 : 0;
        }
        return through;
    }

    /** The highest sustained step's rate (bounded, p99 within the bound), or 0 when none was. */
    static int capacity(List<Step> steps) {
        return highest(steps, Step::sustained);
    }

    /** The highest bounded step's rate, at any latency, or 0 when none was. */
    static int boundedCapacity(List<Step> steps) {
        return highest(steps, Step::bounded);
    }

    private static int highest(List<Step> steps, Predicate<Step> kept) {
        return steps.stream().filter(kept).mapToInt(Step::offered).max().orElse(0);
    }

    /** The steps as a Markdown table. */
    static String table(List<Step> steps) {
        StringBuilder md = new StringBuilder("| offered | sent | achieved (through in the step) | backlog: middle → end"
                + " | p50 | p99 | bounded | sustained |\n| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
        for (Step step : steps) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d in %.1f s | %s | %d → %d | %s ms | %s ms | %s | %s |%n",
                    Samples.rate(step.offered(), "/s"),
                    step.sent(),
                    step.seconds(),
                    Samples.rate(step.achieved(), "/s"),
                    step.midBacklog(),
                    step.backlog(),
                    Samples.ms(step.latency().percentileMillis(50)),
                    Samples.ms(step.latency().percentileMillis(99)),
                    (step.bounded() ? "yes" : "no")
                            + (step.latency().errors() > 0
                                    ? " (" + step.latency().errors() + " not through in time)"
                                    : ""),
                    step.sustained() ? "yes" : "no"));
        }
        return md.toString();
    }
}
