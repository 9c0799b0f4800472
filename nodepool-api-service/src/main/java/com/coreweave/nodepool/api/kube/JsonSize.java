package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * The size of a value as JSON, as the platform writes it (UTF-8, JSON escapes: a value may take up to six times its
 * characters), counted without keeping the bytes and only up to a limit: past it the exact size does not matter, so
 * measuring a value costs at most the limit, however large the value.
 */
public final class JsonSize {

    private JsonSize() {}

    /** The size of {@code value} in bytes when it is at most {@code limit}; otherwise some number above it. */
    public static long of(Object value, long limit) {
        Counter counter = new Counter(limit);
        try {
            Json.mapper().writeValue(counter, value);
        } catch (IOException e) {
            if (!counter.over()) {
                throw new UncheckedIOException(e);
            }
        }
        return counter.bytes;
    }

    /** Counts what is written and stops the writer once past its limit. */
    private static final class Counter extends OutputStream {
        private final long limit;
        private long bytes;

        Counter(long limit) {
            this.limit = limit;
        }

        boolean over() {
            return bytes > limit;
        }

        @Override
        public void write(int b) throws IOException {
            count(1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count(len);
        }

        private void count(int written) throws IOException {
            bytes += written;
            if (over()) {
                throw new IOException("more than " + limit + " bytes");
            }
        }
    }
}
