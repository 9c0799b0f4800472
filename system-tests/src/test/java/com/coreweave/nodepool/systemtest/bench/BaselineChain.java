package com.coreweave.nodepool.systemtest.bench;

import com.coreweave.nodepool.testing.ClientSecurity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The baseline's child JVM: a chain of k exactly-once pass-through Kafka Streams hops, {@code bench-baseline-0} → hop 1
 * → {@code bench-baseline-1} → … → {@code bench-baseline-k}, each hop a sub-topology that copies records unchanged.
 * Hops are grouped into one Streams app per service they stand for (one stream thread each, like the services), so the
 * chain commits as many transactions per interval as the services on the path do.
 *
 * <p>Arguments: the bootstrap servers, a state directory, the service of each hop in order (comma-separated), then the
 * Streams settings as {@code key=value}. Prints {@link #READY} once every app runs; stops on SIGTERM.
 */
public final class BaselineChain {

    static final String READY = "baseline chain running";

    private BaselineChain() {}

    static String topic(int index) {
        return "bench-baseline-" + index;
    }

    public static void main(String[] args) throws InterruptedException {
        String bootstrap = args[0];
        Path stateDir = Path.of(args[1]);
        List<String> hops = List.of(args[2].split(","));
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 3; i < args.length; i++) {
            settings.put(args[i].substring(0, args[i].indexOf('=')), args[i].substring(args[i].indexOf('=') + 1));
        }
        Map<String, StreamsBuilder> apps = new LinkedHashMap<>();
        for (int hop = 1; hop <= hops.size(); hop++) {
            apps.computeIfAbsent(hops.get(hop - 1), service -> new StreamsBuilder()).stream(
                            topic(hop - 1), Consumed.with(Serdes.String(), Serdes.ByteArray()))
                    .to(topic(hop), Produced.with(Serdes.String(), Serdes.ByteArray()));
        }
        List<KafkaStreams> running = new ArrayList<>();
        apps.forEach((service, builder) -> {
            Properties props = new Properties();
            props.putAll(settings);
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench-baseline-" + service);
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(service).toString());
            running.add(new KafkaStreams(builder.build(), ClientSecurity.streams(props)));
        });
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.forEach(streams -> streams.close(Duration.ofSeconds(5)));
            stopped.countDown();
        }));
        running.forEach(KafkaStreams::start);
        while (running.stream().anyMatch(streams -> streams.state() != KafkaStreams.State.RUNNING)) {
            if (running.stream().anyMatch(streams -> !streams.state().isRunningOrRebalancing())) {
                System.out.println("baseline chain failed to start: "
                        + running.stream().map(KafkaStreams::state).toList());
                System.exit(1);
            }
            Thread.sleep(100);
        }
        System.out.println(READY + ": " + hops.size() + " hops in " + apps.size() + " apps " + apps.keySet()
                + ", settings " + settings);
        stopped.await();
    }
}
