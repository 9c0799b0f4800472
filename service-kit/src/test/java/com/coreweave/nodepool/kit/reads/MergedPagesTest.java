package com.coreweave.nodepool.kit.reads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;

/** A page merged from the range scans of several partitions (each in key order). */
class MergedPagesTest {

    @Test
    void mergesThePartitionsInKeyOrderUpToTheLimit() {
        var page = MergedPages.merge(List.of(scan("org/a", "org/d"), scan("org/b", "org/e"), scan("org/c")), null, 4);

        assertThat(page.keySet()).containsExactly("org/a", "org/b", "org/c", "org/d");
    }

    @Test
    void theKeyAPageContinuesAfterIsLeftOut() {
        var page = MergedPages.merge(List.of(scan("org/b", "org/d"), scan("org/c")), "org/b", 10);

        assertThat(page.keySet()).containsExactly("org/c", "org/d");
    }

    @Test
    void noPartitionsIsAnEmptyPage() {
        assertThat(MergedPages.merge(List.<KeyValueIterator<String, String>>of(), null, 10))
                .isEmpty();
    }

    @Test
    void aPositionBeforeThePrefixStartsAtThePrefix() {
        assertThat(MergedPages.from("org/", "aaa"))
                .as("a forged continue token")
                .isEqualTo("org/");
        assertThat(MergedPages.from("org/", "org/b")).isEqualTo("org/b");
        assertThat(MergedPages.from("org/", null)).isEqualTo("org/");
    }

    private static KeyValueIterator<String, String> scan(String... keys) {
        Iterator<String> it = Stream.of(keys).iterator();
        return new KeyValueIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public KeyValue<String, String> next() {
                String key = it.next();
                return KeyValue.pair(key, "value of " + key);
            }

            @Override
            public void close() {}

            @Override
            public String peekNextKey() {
                throw new UnsupportedOperationException();
            }
        };
    }
}
