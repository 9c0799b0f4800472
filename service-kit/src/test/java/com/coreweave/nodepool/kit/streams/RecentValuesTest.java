package com.coreweave.nodepool.kit.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RecentValuesTest {

  /** Counts how often the store's bytes are parsed. */
  private final AtomicInteger parsed = new AtomicInteger();
  private KeyValueStore<String, String> store;
  private RecentValues<String> views;

  @BeforeEach
  void openAStore() {
    Serde<String> counting = Serdes.serdeFrom((topic, value) -> value.getBytes(StandardCharsets.UTF_8),
        (topic, bytes) -> {
          parsed.incrementAndGet();
          return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        });
    store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("views"), Serdes.String(), counting)
        .withLoggingDisabled().build();
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
  void everyWriteAndDeleteReachesTheStore() {
    views.put("org/pool-a", "Pending");
    views.put("org/pool-a", "AtTarget");
    views.put("org/pool-b", "Pending");
    views.delete("org/pool-b");

    assertThat(store.get("org/pool-a")).isEqualTo("AtTarget");
    assertThat(store.get("org/pool-b")).isNull();
    assertThat(views.get("org/pool-b")).isNull();
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
    views.get("org/pool-a");
    views.put("org/pool-c", "Pending");

    assertThat(views.get("org/pool-a")).isEqualTo("Pending");
    assertThat(parsed).hasValue(0);
    assertThat(views.get("org/pool-b")).isEqualTo("Pending");
    assertThat(parsed).hasValue(1);
  }
}
