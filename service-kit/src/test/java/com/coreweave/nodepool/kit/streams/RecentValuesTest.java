package com.coreweave.nodepool.kit.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RecentValuesTest {

  /** Counts how often the store's bytes are parsed. */
  private final AtomicInteger parsed = new AtomicInteger();
  /** Every value serialized into the store. */
  private final List<String> written = new ArrayList<>();
  private KeyValueStore<String, String> store;
  private RecentValues<String> views;

  @BeforeEach
  void openAStore() {
    Serde<String> counting = Serdes.serdeFrom((topic, value) -> {
          written.add(value);
          return value.getBytes(StandardCharsets.UTF_8);
        },
        (topic, bytes) -> {
          parsed.incrementAndGet();
          return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        });
    store = RecentValues.layered(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("views"),
        Serdes.String(), counting).withLoggingDisabled()).build();
    store.init(new MockProcessorContext<>().getStateStoreContext(), store);
    views = new RecentValues<>(store, 2);
  }

  @Test
  void aViewWrittenIsReadBackWithoutParsingTheStore() {
    views.put("org/pool-a", "Pending");

    assertThat(views.get("org/pool-a")).isEqualTo("Pending");
    assertThat(parsed).hasValue(0);
  }

  @Test
  void writesReachTheStoreWhenStreamsFlushesItForTheCommitAndOnlyTheLastOfEachKey() {
    views.put("org/pool-a", "Pending");
    views.put("org/pool-a", "AtTarget");
    views.put("org/pool-b", "Pending");
    assertThat(store.get("org/pool-a")).isNull();

    commit();

    assertThat(store.get("org/pool-a")).isEqualTo("AtTarget");
    assertThat(store.get("org/pool-b")).isEqualTo("Pending");
    assertThat(written).containsExactlyInAnyOrder("AtTarget", "Pending");
  }

  @Test
  void aDeleteReachesTheStoreAtOnceAndDropsAHeldWrite() {
    views.put("org/pool-a", "Pending");
    commit();
    views.put("org/pool-a", "AtTarget");
    views.delete("org/pool-a");

    assertThat(store.get("org/pool-a")).isNull();
    commit();
    assertThat(store.get("org/pool-a")).isNull();
    assertThat(views.get("org/pool-a")).isNull();
  }

  @Test
  void aHeldValueLeavingTheCacheIsWrittenThen() {
    views.put("org/pool-a", "Pending");
    views.put("org/pool-b", "Pending");
    views.put("org/pool-c", "Pending");

    assertThat(store.get("org/pool-a")).isEqualTo("Pending");
    assertThat(store.get("org/pool-c")).isNull();
  }

  @Test
  void iteratingTheStoreSeesTheHeldValues() {
    views.put("org/pool-a", "Pending");

    try (var all = views.store().all()) {
      assertThat(all.next().value).isEqualTo("Pending");
    }
  }

  @Test
  void aStoreBuiltWithoutTheLayerIsRefused() {
    KeyValueStore<String, String> plain = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("plain"),
        Serdes.String(), Serdes.String()).withLoggingDisabled().build();

    assertThatThrownBy(() -> new RecentValues<>(plain, 2)).hasMessageContaining("RecentValues.layered");
  }

  /** What Streams does to every store of a task before the commit's records go to the broker. */
  private void commit() {
    ((CachedStateStore<?, ?>) store).flushCache();
  }

  @Test
  void aViewOnlyInTheStoreIsParsedOnceThenKept() {
    store.put("org/pool-a", "Pending");

    assertThat(views.get("org/pool-a")).isEqualTo("Pending");
    assertThat(views.get("org/pool-a")).isEqualTo("Pending");
    assertThat(parsed).hasValue(1);
  }

  @Test
  void beyondItsCapacityTheLeastRecentlyUsedViewIsReadFromTheStoreAgain() {
    views.put("org/pool-a", "Pending");
    views.put("org/pool-b", "Pending");
    commit();
    views.get("org/pool-a");
    views.put("org/pool-c", "Pending");

    assertThat(views.get("org/pool-a")).isEqualTo("Pending");
    assertThat(parsed).hasValue(0);
    assertThat(views.get("org/pool-b")).isEqualTo("Pending");
    assertThat(parsed).hasValue(1);
  }
}
