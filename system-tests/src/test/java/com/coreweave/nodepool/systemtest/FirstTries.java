package com.coreweave.nodepool.systemtest;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A client creating pools one after another while the cluster loses a broker and instances, as a platform team's
 * tooling would: what it measures is how many creates were answered 201 at the first try within {@link #WITHIN}. A
 * refused connection, or the 503 of an instance still starting (it writes nothing, and a load balancer would not send
 * it traffic before it is ready), is sent on to the next instance within the same try; so is a request whose connection
 * the kill cut while it was in flight (no server is left to answer it), as a client transport resends a request that
 * carries an {@code Idempotency-Key} (Go's, a proxy's retry on reset) — those are counted apart. Anything else (a 5xx,
 * an answer after the bound, even counting the resend) is a try that failed, after which the create is sent again with
 * the same {@code Idempotency-Key} until it is answered.
 */
final class FirstTries implements AutoCloseable {

    static final Duration WITHIN = Duration.ofSeconds(10);

    /** One create: when it was sent, how its first try ended, how long that took, and whether a retry made it. */
    record Create(
            String name,
            Instant at,
            String fault,
            String firstTry,
            long millis,
            boolean answeredInTime,
            boolean made) {}

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Longer than the api-service waits for a decision, so its own 504 is what the client sees. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** What an instance that cannot take writes yet answers with its 503 (PoolWrites). */
    private static final String STARTING = "the API is starting";
    /** How many creates at most: the org's pools stay far below its count quota. */
    private static final int MAX_CREATES = 600;

    final Queue<Create> creates = new ConcurrentLinkedQueue<>();
    /** Requests whose connection was cut while they were in flight (an instance killed under them). */
    final AtomicInteger cut = new AtomicInteger();

    private final List<URI> instances;
    private final String token;
    private final String type;
    private final String run = Long.toString(System.currentTimeMillis(), 36);
    private volatile boolean running = true;
    /** The fault being injected or recovered from when a create is sent (ChaosRun sets it). */
    private volatile String fault = "before the faults";

    private Thread thread;

    FirstTries(List<URI> instances, String token, String type) {
        this.instances = List.copyOf(instances);
        this.token = token;
        this.type = type;
    }

    FirstTries start() {
        thread = Thread.ofPlatform().name("first-tries").start(this::createOneAfterAnother);
        return this;
    }

    private void createOneAfterAnother() {
        for (int i = 0; running && i < MAX_CREATES; i++) {
            String name = "ft-" + run + "-" + i;
            String key = UUID.randomUUID().toString();
            Instant at = Instant.now();
            long start = System.nanoTime();
            String first = attempt(i, name, key);
            long millis = (System.nanoTime() - start) / 1_000_000;
            boolean inTime = "201".equals(first) && millis <= WITHIN.toMillis();
            boolean made = "201".equals(first) || retried(i, name, key);
            creates.add(new Create(name, at, fault, first, millis, inTime, made));
        }
    }

    /** Sent again with the same key until it is answered 201 (or 60 s pass). */
    private boolean retried(int i, String name, String key) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if ("201".equals(attempt(i + 1, name, key))) {
                return true;
            }
            sleep(Duration.ofMillis(500));
        }
        return false;
    }

    /** One try: the HTTP status as text, or what cut it short. */
    private String attempt(int i, String name, String idempotencyKey) {
        String body = Api.pool(name, type, 0);
        for (int k = 0; k < instances.size(); k++) {
            URI base = instances.get(Math.floorMod(i + k, instances.size()));
            HttpRequest request = HttpRequest.newBuilder(base.resolve(Api.POOLS))
                    .header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", idempotencyKey)
                    .timeout(REQUEST_TIMEOUT)
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
            try {
                HttpResponse<String> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() != 503 || !answer.body().contains(STARTING)) {
                    return Integer.toString(answer.statusCode());
                }
            } catch (ConnectException e) {
                // Refused: nothing arrived, so the next instance gets the same try.
            } catch (IOException e) {
                cut.incrementAndGet();
                if (k == instances.size() - 1) {
                    return e.getClass().getSimpleName();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }
        return "refused";
    }

    /** Names the fault the creates sent from now on are made during. */
    void during(String row) {
        fault = row;
    }

    /** The creates so far answered at the first try within {@link #WITHIN}, as a share of all. */
    double share() {
        return share(c -> true);
    }

    /** As {@link #share()}, of the creates {@code which} takes (1 when there are none). */
    double share(Predicate<Create> which) {
        List<Create> some = creates.stream().filter(which).toList();
        return some.isEmpty()
                ? 1
                : (double) some.stream().filter(Create::answeredInTime).count() / some.size();
    }

    /** A paragraph for the report: the figure, the slowest first tries and every create that missed. */
    String report() {
        List<Create> all = List.copyOf(creates);
        List<Create> missed = all.stream().filter(c -> !c.answeredInTime()).toList();
        long slowest = all.stream().mapToLong(Create::millis).max().orElse(0);
        StringBuilder out = new StringBuilder(String.format(
                Locale.ROOT,
                "A client creating pools one after another: %d of %d answered 201 at the first try within %d s"
                        + " (%.2f %%), the median first try %d ms, the slowest %d ms, %d not made even by a retry;"
                        + " %d request(s) cut in flight by a kill and sent again to the other instance.%n",
                all.size() - missed.size(),
                all.size(),
                WITHIN.toSeconds(),
                100 * share(),
                all.stream()
                        .mapToLong(Create::millis)
                        .sorted()
                        .skip(all.size() / 2)
                        .findFirst()
                        .orElse(0),
                slowest,
                all.stream().filter(c -> !c.made()).count(),
                cut.get()));
        all.stream()
                .map(Create::fault)
                .distinct()
                .forEach(row -> out.append(String.format(
                        Locale.ROOT,
                        "- during %s: %d creates, %.2f %% at the first try within %d s%n",
                        row,
                        all.stream().filter(c -> c.fault().equals(row)).count(),
                        100 * share(c -> c.fault().equals(row)),
                        WITHIN.toSeconds())));
        out.append(missed.stream()
                .limit(20)
                .map(c -> String.format(
                        Locale.ROOT,
                        "- missed: %s %s (%s): %s after %d ms%s",
                        c.at().truncatedTo(ChronoUnit.MILLIS),
                        c.name(),
                        c.fault(),
                        c.firstTry(),
                        c.millis(),
                        c.made() ? ", made by a retry" : ", NOT made"))
                .collect(Collectors.joining("\n")));
        return out.toString();
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(90));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
