package com.coreweave.nodepool.systemtest.bench;

import static com.coreweave.nodepool.systemtest.bench.Phases.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToLongFunction;

/**
 * Offers items at rising steady rates, one step after another, and reports per step the offered and achieved rates, the
 * backlog at its end and how long its items took to get through; the same for the pools and the baseline chain. The
 * sustained capacity is the highest step whose backlog stayed bounded and whose p99 stayed within {@link #P99_BOUND}.
 */
final class SustainedLoad {

    /** The latency a step may reach at p99 and still count as sustained. */
    static final Duration P99_BOUND = Duration.ofSeconds(1);

    /** Sends item {@code i}, without waiting for its acknowledgement. */
    interface Sender {
        void send(int i) throws Exception;
    }

    /** One step: items sent at {@code offered}/s for {@code seconds}; backlog = items sent so far and not through. */
    record Step(int offered, int sent, double seconds, int through, int backlog, Samples latency) {

        double sentRate() {
            return sent / seconds;
        }

        /** Items that got through during the step, per second (earlier steps' backlog included). */
        double achieved() {
            return through / seconds;
        }

        /** Bounded: no more in flight at its end than a second's worth, which a p99 within a second allows. */
        boolean bounded() {
            return backlog <= allowedBacklog(offered);
        }

        boolean sustained() {
            return bounded()
                    && latency.errors() == 0
                    && latency.percentileMillis(99) <= P99_BOUND.toMillis()
                    && sentRate() >= offered * 0.9;
        }
    }

    /** What a step sent (items {@code first} to {@code end} - 1), before their latencies are known. */
    private record Sent(int rate, int first, int end, double seconds, int through, int backlog) {}

    private final List<Integer> rates;
    private final Duration stepLength;

    SustainedLoad(List<Integer> rates, Duration stepLength) {
        this.rates = List.copyOf(rates);
        this.stepLength = stepLength;
    }

    /** How many items the steps offer at most. */
    int items() {
        return rates.stream()
                .mapToInt(rate -> (int) (rate * stepLength.toMillis() / 1000))
                .sum();
    }

    /**
     * Runs the steps, stopping after the first one whose backlog was not bounded, then waits up to {@code drain} for
     * everything sent to get through. {@code doneAt(i)}: when item {@code i} got through (nanoTime), 0 if not yet.
     */
    List<Step> run(String what, Sender sender, IntToLongFunction doneAt, Duration drain) throws Exception {
        long[] sentAt = new long[items()];
        int next = 0;
        List<Sent> sent = new ArrayList<>();
        int throughBefore = 0;
        for (int rate : rates) {
            int first = next;
            int count = (int) (rate * stepLength.toMillis() / 1000);
            long start = System.nanoTime();
            while (next < first + count) {
                long due = first + (System.nanoTime() - start) * rate / 1_000_000_000L;
                while (next <= Math.min(due, first + count - 1)) {
                    sentAt[next] = System.nanoTime();
                    sender.send(next++);
                }
                Thread.sleep(1);
            }
            long end = System.nanoTime();
            int through = through(doneAt, next);
            sent.add(new Sent(rate, first, next, (end - start) / 1e9, through - throughBefore, next - through));
            log(String.format(
                    Locale.ROOT,
                    "%s: %d/s offered, %d sent in %.1f s, backlog %d at its end",
                    what,
                    rate,
                    count,
                    (end - start) / 1e9,
                    next - through));
            throughBefore = through;
            if (next - through > allowedBacklog(rate) * 4) {
                log(what + ": falling behind, no higher step");
                break;
            }
        }
        long deadline = System.nanoTime() + drain.toNanos();
        while (through(doneAt, next) < next && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        List<Step> steps = new ArrayList<>();
        for (Sent step : sent) {
            Samples latency = new Samples();
            for (int i = step.first(); i < step.end(); i++) {
                long done = doneAt.applyAsLong(i);
                if (done == 0) {
                    latency.error();
                } else {
                    latency.add(done - sentAt[i]);
                }
            }
            steps.add(new Step(
                    step.rate(), step.end() - step.first(), step.seconds(), step.through(), step.backlog(), latency));
        }
        return steps;
    }

    /** A second's worth of items at {@code rate} (at least 10): what may be in flight when p99 is within a second. */
    private static double allowedBacklog(int rate) {
        return Math.max(rate * P99_BOUND.toMillis() / 1000.0, 10);
    }

    private static int through(IntToLongFunction doneAt, int sent) {
        int through = 0;
        for (int i = 0; i < sent; i++) {
            through += doneAt.applyAsLong(i) != 0 ? 1 : 0;
        }
        return through;
    }

    /** The highest sustained step's rate, or 0 when none was. */
    static int capacity(List<Step> steps) {
        return steps.stream()
                .filter(Step::sustained)
                .mapToInt(Step::offered)
                .max()
                .orElse(0);
    }

    /** The steps as a Markdown table. */
    static String table(List<Step> steps) {
        StringBuilder md = new StringBuilder(
                "| offered | sent | achieved (through in the step) | backlog at its end | p50 | p99 | sustained |\n"
                        + "| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Step step : steps) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d in %.1f s | %s | %d | %s ms | %s ms | %s |%n",
                    Samples.rate(step.offered(), "/s"),
                    step.sent(),
                    step.seconds(),
                    Samples.rate(step.achieved(), "/s"),
                    step.backlog(),
                    Samples.ms(step.latency().percentileMillis(50)),
                    Samples.ms(step.latency().percentileMillis(99)),
                    (step.sustained() ? "yes" : "no")
                            + (step.latency().errors() > 0
                                    ? " (" + step.latency().errors() + " not through in time)"
                                    : "")));
        }
        return md.toString();
    }
}
