package com.coreweave.nodepool.api.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.api.kube.ListVersion;
import com.coreweave.nodepool.api.messaging.LiveFeed.EventChange;
import com.coreweave.nodepool.api.messaging.LiveFeed.PoolChange;
import com.coreweave.nodepool.api.messaging.LiveFeed.Stream;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.topics.Topics;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The watch history of the live feed, driven as its topic follower drives it (positioned, then batches of records),
 * with no broker: what a watch resuming from a list's resourceVersion replays, when that version is gone, and which
 * watcher sees which change.
 */
class LiveFeedTest {

    private static final String STATUS = Topics.NODEPOOL_STATUS.name();
    private static final String EVENTS = Topics.NODEPOOL_EVENTS.name();

    private final LiveFeed feed = new LiveFeed();

    /** Offsets of the records each test wrote, per topic partition, so the next one follows on. */
    private final Map<TopicPartition, Long> next = new HashMap<>();

    // ---- positions and versions ---------------------------------------------------------------------------------

    @Test
    void shouldNameTheReadPositionOfEveryPartitionAsTheListVersion() {
        // given
        positioned(STATUS, 2, 0, 0);
        // when
        deleted(0, "acme/a", "acme/b");
        deleted(1, "acme/c");
        // then
        assertThat(feed.version(Stream.POOLS)).hasToString("L2.1");
        assertThat(feed.partitionCount(Stream.POOLS)).isEqualTo(2);
    }

    @Test
    void shouldStartTheHistoryAThousandRecordsBeforeTheEndOfALongPartition() {
        // given a partition of 5,000 records, of which the feed reads only the last ones
        Map<TopicPartition, Long> starts = feed.startHistory(
                Map.of(new TopicPartition(STATUS, 0), 0L), Map.of(new TopicPartition(STATUS, 0), 5_000L));
        // then
        assertThat(starts).containsEntry(new TopicPartition(STATUS, 0), 5_000L - LiveFeed.HISTORY);
        assertThat(feed.version(Stream.POOLS)).hasToString("L4000");
        assertThat(feed.resumable(Stream.POOLS, "L4000")).isTrue();
        assertThat(feed.resumable(Stream.POOLS, "L3999")).isFalse();
    }

    @Test
    void shouldStartAShortPartitionAtItsBeginning() {
        Map<TopicPartition, Long> starts = feed.startHistory(
                Map.of(new TopicPartition(STATUS, 0), 120L), Map.of(new TopicPartition(STATUS, 0), 300L));

        assertThat(starts).containsEntry(new TopicPartition(STATUS, 0), 120L);
        assertThat(feed.version(Stream.POOLS)).hasToString("L120");
    }

    @Test
    void shouldKnowNoPartitionsBeforeItRuns() {
        assertThat(feed.partitionCount(Stream.EVENTS)).isZero();
        assertThat(feed.version(Stream.EVENTS)).hasToString("L");
        assertThat(feed.resumable(Stream.EVENTS, "L0")).isFalse();
    }

    // ---- resuming from a version --------------------------------------------------------------------------------

    @Test
    void shouldReplayOnlyTheChangesAfterTheVersionAWatchResumesFrom() {
        // given
        positioned(STATUS, 1, 0, 0);
        deleted(0, "acme/a", "acme/b", "acme/c", "acme/d");
        List<Object> seen = new ArrayList<>();
        // when
        Runnable stop = feed.watch(Stream.POOLS, null, ListVersion.of(List.of(2L)), seen::add);
        // then
        assertThat(stop).isNotNull();
        assertThat(pools(seen)).containsExactly("acme/c", "acme/d");
    }

    @Test
    void shouldReplayNothingFromTheCurrentVersionButDeliverWhatComesAfter() {
        // given
        positioned(STATUS, 1, 0, 0);
        deleted(0, "acme/a", "acme/b");
        List<Object> seen = new ArrayList<>();
        feed.watch(Stream.POOLS, null, feed.version(Stream.POOLS), seen::add);
        assertThat(seen).isEmpty();
        // when
        deleted(0, "acme/c");
        // then
        assertThat(pools(seen)).containsExactly("acme/c");
    }

    @Test
    void shouldAnswerGoneWhenTheVersionIsOlderThanTheHistory() {
        // given one record more than the history keeps
        positioned(STATUS, 1, 0, 0);
        for (int i = 0; i <= LiveFeed.HISTORY; i++) {
            deleted(0, "acme/p" + i);
        }
        List<Object> seen = new ArrayList<>();
        // when
        Runnable gone = feed.watch(Stream.POOLS, null, ListVersion.of(List.of(0L)), seen::add);
        Runnable kept = feed.watch(Stream.POOLS, null, ListVersion.of(List.of(1L)), seen::add);
        // then
        assertThat(gone).isNull();
        assertThat(feed.resumable(Stream.POOLS, "L0")).isFalse();
        assertThat(kept).isNotNull();
        assertThat(seen).hasSize(LiveFeed.HISTORY);
        assertThat(pools(seen).getFirst()).isEqualTo("acme/p1");
    }

    @Test
    void shouldShortenTheHistoryWhenItsChangesWeighMoreThanItsByteBudget() {
        // given two changes that together pass the byte budget of a partition
        positioned(STATUS, 1, 0, 0);
        byte[] large = new byte[(int) (LiveFeed.HISTORY_BYTES / 2) + 1];
        receive(STATUS, 0, "acme/a", large);
        receive(STATUS, 0, "acme/b", large);
        // then the first is no longer in the history, the second is
        assertThat(feed.resumable(Stream.POOLS, "L0")).isFalse();
        assertThat(feed.resumable(Stream.POOLS, "L1")).isTrue();
    }

    @Test
    void shouldRefuseAVersionOfAnotherPartitionCount() {
        positioned(STATUS, 2, 0, 0);
        deleted(0, "acme/a");

        assertThat(feed.resumable(Stream.POOLS, "L0")).isFalse();
        assertThat(feed.resumable(Stream.POOLS, "L0.0")).isTrue();
        assertThat(feed.watch(Stream.POOLS, null, ListVersion.of(List.of(0L)), change -> {}))
                .isNull();
    }

    @Test
    void shouldRefuseAnObjectsOwnResourceVersion() {
        positioned(STATUS, 1, 0, 0);

        assertThat(feed.resumable(Stream.POOLS, "1749480534789000")).isFalse();
        assertThat(feed.resumable(Stream.POOLS, null)).isFalse();
    }

    @Test
    void shouldResumeFromAVersionAheadOfTheHistoryWhenNothingWasMissed() {
        // given a feed that starts reading at offset 50 of a partition whose earlier records it never held
        feed.startHistory(Map.of(new TopicPartition(STATUS, 0), 50L), Map.of(new TopicPartition(STATUS, 0), 50L));
        next.put(new TopicPartition(STATUS, 0), 50L);
        deleted(0, "acme/a");
        // then a version at or after where it started can be resumed, one before cannot
        assertThat(feed.resumable(Stream.POOLS, "L50")).isTrue();
        assertThat(feed.resumable(Stream.POOLS, "L51")).isTrue();
        assertThat(feed.resumable(Stream.POOLS, "L49")).isFalse();
    }

    // ---- who sees what ------------------------------------------------------------------------------------------

    @Test
    void shouldShowAnOrgsWatcherOnlyItsOwnPools() {
        // given
        positioned(STATUS, 1, 0, 0);
        deleted(0, "acme/old", "globex/old");
        List<Object> acme = new ArrayList<>();
        List<Object> everyone = new ArrayList<>();
        feed.watch(Stream.POOLS, "acme", ListVersion.of(List.of(0L)), acme::add);
        feed.watch(Stream.POOLS, null, ListVersion.of(List.of(0L)), everyone::add);
        // when
        deleted(0, "globex/new", "acme/new");
        // then
        assertThat(pools(acme)).containsExactly("acme/old", "acme/new");
        assertThat(pools(everyone)).containsExactly("acme/old", "globex/old", "globex/new", "acme/new");
    }

    @Test
    void shouldShowAPoolsWatcherNoEvents() {
        // given
        Watchers watchers = watchPoolsAndEvents();
        List<Object> pools = watchers.pools();
        List<Object> events = watchers.events();
        // when
        receive(EVENTS, 0, "acme/a", event("a.1", "Scaled"));
        // then
        assertThat(pools).isEmpty();
        assertThat(events).singleElement().isInstanceOfSatisfying(EventChange.class, change -> {
            assertThat(change.key()).isEqualTo(PoolKey.parse("acme/a"));
            assertThat(change.event().getMetadata().getName()).isEqualTo("a.1");
            assertThat(change.event().getReason()).isEqualTo("Scaled");
        });
    }

    @Test
    void shouldHandAWatcherThePoolAsPublished() {
        positioned(STATUS, 1, 0, 0);
        List<Object> seen = new ArrayList<>();
        feed.watch(Stream.POOLS, null, null, seen::add);

        receive(STATUS, 0, "acme/a", bytes("""
                {"apiVersion": "compute.coreweave.com/v1alpha1", "kind": "NodePool",
                 "metadata": {"name": "a", "resourceVersion": "7"}}
                """));

        assertThat(seen).singleElement().isInstanceOfSatisfying(PoolChange.class, change -> {
            assertThat(change.pool().metadata().name()).isEqualTo("a");
            assertThat(change.pool().metadata().resourceVersion()).isEqualTo("7");
        });
    }

    @Test
    void shouldTellAWatcherOfADeletedPoolByAChangeWithoutPool() {
        positioned(STATUS, 1, 0, 0);
        List<Object> seen = new ArrayList<>();
        feed.watch(Stream.POOLS, null, null, seen::add);

        deleted(0, "acme/a");

        assertThat(seen).singleElement().isEqualTo(new PoolChange(PoolKey.parse("acme/a"), null));
    }

    @Test
    void shouldStopDeliveringOnceTheWatcherIsUnregistered() {
        // given
        positioned(STATUS, 1, 0, 0);
        List<Object> seen = new ArrayList<>();
        Runnable stop = feed.watch(Stream.POOLS, null, null, seen::add);
        deleted(0, "acme/a");
        // when
        stop.run();
        deleted(0, "acme/b");
        // then
        assertThat(pools(seen)).containsExactly("acme/a");
    }

    @Test
    void shouldKeepDeliveringToOtherWatchersWhenOneFails() {
        // given
        positioned(STATUS, 1, 0, 0);
        List<Object> seen = new ArrayList<>();
        feed.watch(Stream.POOLS, null, null, change -> {
            throw new IllegalStateException("client gone");
        });
        feed.watch(Stream.POOLS, null, null, seen::add);
        // when
        deleted(0, "acme/a", "acme/b");
        // then
        assertThat(pools(seen)).containsExactly("acme/a", "acme/b");
        assertThat(feed.version(Stream.POOLS)).hasToString("L2");
    }

    @Test
    void shouldSkipUnreadableRecordsButMoveOnPastThem() {
        // given
        Watchers watchers = watchPoolsAndEvents();
        List<Object> pools = watchers.pools();
        List<Object> events = watchers.events();
        // when: a key that names no pool, a value that is no pool, an event tombstone
        receive(STATUS, 0, "no-slash", null);
        receive(STATUS, 0, "acme/broken", bytes("{not json"));
        receive(STATUS, 0, "acme/fine", null);
        receive(EVENTS, 0, "acme/fine", null);
        // then
        assertThat(pools(pools)).containsExactly("acme/fine");
        assertThat(events).isEmpty();
        assertThat(feed.version(Stream.POOLS)).hasToString("L3");
        assertThat(feed.version(Stream.EVENTS)).hasToString("L1");
    }

    @Test
    void shouldRunAnActionBetweenTwoChangesInTheirOrder() {
        positioned(STATUS, 1, 0, 0);
        List<Object> seen = new ArrayList<>();
        feed.watch(Stream.POOLS, null, null, seen::add);

        deleted(0, "acme/a");
        feed.between(() -> seen.add("bookmark"));
        deleted(0, "acme/b");

        assertThat(seen).hasSize(3).element(1).isEqualTo("bookmark");
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** The follower positioned the topic's {@code count} partitions, each with the given begin and end offsets. */
    private void positioned(String topic, int count, long begin, long end) {
        Map<TopicPartition, Long> begins = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (int p = 0; p < count; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            begins.put(tp, begin);
            ends.put(tp, end);
            next.put(tp, end);
        }
        feed.startHistory(begins, ends);
    }

    /** Tombstones on {@code nodepool-status} (pools deleted), one batch each. */
    private void deleted(int partition, String... keys) {
        for (String key : keys) {
            receive(STATUS, partition, key, null);
        }
    }

    /** One record read, at the partition's next offset, and the partition read up to after it. */
    private void receive(String topic, int partition, String key, byte[] value) {
        TopicPartition tp = new TopicPartition(topic, partition);
        long offset = next.getOrDefault(tp, 0L);
        next.put(tp, offset + 1);
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>(topic, partition, offset, key, value);
        feed.receive(new ConsumerRecords<>(Map.of(tp, List.of(record)), Map.of()), Map.of(tp, offset + 1));
    }

    private static byte[] event(String name, String reason) {
        return bytes(Json.string(new EventBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withReason(reason)
                .build()));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The keys of the pool changes seen, in order. */
    private static List<String> pools(List<Object> seen) {
        return seen.stream().map(c -> ((PoolChange) c).key().toString()).toList();
    }

    /** What an all-orgs pools watcher and an events watcher receive, on a feed of one partition per stream. */
    private record Watchers(List<Object> pools, List<Object> events) {}

    private Watchers watchPoolsAndEvents() {
        positioned(STATUS, 1, 0, 0);
        positioned(EVENTS, 1, 0, 0);
        Watchers watchers = new Watchers(new ArrayList<>(), new ArrayList<>());
        feed.watch(Stream.POOLS, null, null, watchers.pools()::add);
        feed.watch(Stream.EVENTS, null, null, watchers.events()::add);
        return watchers;
    }
}
