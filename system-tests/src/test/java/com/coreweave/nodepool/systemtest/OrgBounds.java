package com.coreweave.nodepool.systemtest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/** What {@code HostileOrgBoundsIT} does as a tenant: large pools, raw pages, stalled watches, measured latencies. */
final class OrgBounds {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private OrgBounds() {}

    /** A pool of no nodes whose one annotation has {@code annotationBytes} bytes (the object bound is 256 KiB). */
    static String annotatedPool(String name, String type, int annotationBytes) {
        return """
        {"apiVersion":"compute.coreweave.com/v1alpha1","kind":"NodePool",
         "metadata":{"name":"%s","annotations":{"example.com/notes":"%s"}},
         "spec":{"instanceType":"%s","targetNodes":0}}""".formatted(name, "x".repeat(annotationBytes), type);
    }

    /** An answer as it came: code and body bytes, so a test can weigh a page. */
    record Raw(int code, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    static Raw get(URI base, String token, String path, String accept) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .header("Authorization", "Bearer " + token)
                .header("Accept", accept)
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        try {
            HttpResponse<byte[]> answer = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Raw(answer.statusCode(), answer.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Latencies of calls, in milliseconds, safe to add to from several threads. */
    static final class Latencies {
        private final List<Long> millis = Collections.synchronizedList(new ArrayList<>());

        <T> T time(Supplier<T> call) {
            long start = System.nanoTime();
            try {
                return call.get();
            } finally {
                millis.add((System.nanoTime() - start) / 1_000_000);
            }
        }

        int count() {
            return millis.size();
        }

        List<Long> all() {
            synchronized (millis) {
                return List.copyOf(millis);
            }
        }

        long percentile(double p) {
            List<Long> sorted;
            synchronized (millis) {
                sorted = new ArrayList<>(millis);
            }
            Collections.sort(sorted);
            return sorted.isEmpty() ? -1 : sorted.get((int) Math.ceil(p / 100 * sorted.size()) - 1);
        }
    }

    /**
     * A watch whose client sends its request and then reads nothing, with a receive window as small as the system
     * allows, as a stalled or hostile client would: what the server sends piles up on the server.
     */
    static final class StalledWatch implements AutoCloseable {
        private final Socket socket;

        StalledWatch(URI base, String token, String path) throws IOException {
            socket = new Socket();
            socket.setReceiveBufferSize(4096);
            socket.connect(new java.net.InetSocketAddress(base.getHost(), base.getPort()), 5000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                            + "\r\nAuthorization: Bearer " + token + "\r\nAccept: application/json\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** Reads what the server sent, until {@code wanted} shows or the stream ends or {@code within} passes. */
        String readUntil(String wanted, Duration within) throws IOException {
            socket.setSoTimeout(1000);
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            byte[] buffer = new byte[64 * 1024];
            long deadline = System.nanoTime() + within.toNanos();
            InputStream in = socket.getInputStream();
            // Only the tail is kept: the events before the end are the large objects the stall piled up.
            String tail = "";
            while (System.nanoTime() < deadline) {
                int read;
                try {
                    read = in.read(buffer);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                if (read < 0) {
                    break;
                }
                seen.write(buffer, 0, read);
                tail = tail(seen.toString(StandardCharsets.UTF_8));
                seen.reset();
                seen.write(tail.getBytes(StandardCharsets.UTF_8));
                if (tail.contains(wanted)) {
                    break;
                }
            }
            return tail;
        }

        private static String tail(String text) {
            return text.length() <= 8192 ? text : text.substring(text.length() - 8192);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
