package com.coreweave.nodepool.systemtest.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An OpenTelemetry collector for the tests: receives the spans services export over OTLP/HTTP in protobuf
 * ({@code quarkus.otel.exporter.otlp.traces.protocol=http/protobuf}) and keeps of each what a test asks about, for the
 * last {@value #TRACES} traces (a stack under a fault test's load makes many).
 */
public final class OtlpCollector implements AutoCloseable {

    /**
     * A span as received: the service that made it (its resource's {@code service.name}), its ids, name, kind, and when
     * it started and ended (Unix nanoseconds).
     */
    public record Span(
            String service,
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            Kind kind,
            long startNanos,
            long endNanos) {

        public boolean root() {
            return parentSpanId.isEmpty();
        }
    }

    /** OTLP's SpanKind, in its protobuf order. */
    public enum Kind {
        UNSPECIFIED,
        INTERNAL,
        SERVER,
        CLIENT,
        PRODUCER,
        CONSUMER
    }

    static final int TRACES = 20_000;

    private final HttpServer server;
    private final Map<String, Queue<Span>> traces = new ConcurrentHashMap<>();
    private final Queue<String> arrival = new ConcurrentLinkedQueue<>();

    private OtlpCollector(HttpServer server) {
        this.server = server;
    }

    /** A collector listening on a free port of localhost. */
    public static OtlpCollector start() {
        return start(0);
    }

    /** A collector listening on {@code port} of localhost (0: a free one). */
    public static OtlpCollector start(int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("localhost", port), 0);
            OtlpCollector collector = new OtlpCollector(server);
            server.createContext("/v1/traces", collector::receive);
            server.start();
            return collector;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The endpoint to export to ({@code quarkus.otel.exporter.otlp.traces.endpoint}). */
    public URI endpoint() {
        return URI.create("http://localhost:" + server.getAddress().getPort());
    }

    /** The traces kept, oldest first. */
    public List<String> traceIds() {
        return List.copyOf(arrival);
    }

    /** Every span of the trace received so far. */
    public List<Span> trace(String traceId) {
        Queue<Span> trace = traces.get(traceId);
        return trace == null ? List.of() : List.copyOf(trace);
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream body = exchange.getRequestBody()) {
            request(ByteBuffer.wrap(body.readAllBytes())).forEach(this::keep);
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            // An empty ExportTraceServiceResponse: every span accepted.
            exchange.sendResponseHeaders(200, -1);
        }
    }

    private void keep(Span span) {
        traces.computeIfAbsent(span.traceId(), id -> {
                    arrival.add(id);
                    return new ConcurrentLinkedQueue<>();
                })
                .add(span);
        while (arrival.size() > TRACES) {
            String oldest = arrival.poll();
            if (oldest != null) {
                traces.remove(oldest);
            }
        }
    }

    /** ExportTraceServiceRequest: {@code repeated ResourceSpans resource_spans = 1}. */
    private static List<Span> request(ByteBuffer in) {
        List<Span> read = new ArrayList<>();
        for (Field field : Field.all(in)) {
            if (field.number() == 1) {
                read.addAll(resourceSpans(field.bytes()));
            }
        }
        return read;
    }

    /** ResourceSpans: {@code Resource resource = 1; repeated ScopeSpans scope_spans = 2}. */
    private static List<Span> resourceSpans(ByteBuffer in) {
        String service = "";
        List<ByteBuffer> scopes = new ArrayList<>();
        for (Field field : Field.all(in)) {
            if (field.number() == 1) {
                service = serviceName(field.bytes());
            } else if (field.number() == 2) {
                scopes.add(field.bytes());
            }
        }
        List<Span> read = new ArrayList<>();
        for (ByteBuffer scope : scopes) {
            // ScopeSpans: repeated Span spans = 2.
            for (Field field : Field.all(scope)) {
                if (field.number() == 2) {
                    read.add(span(service, field.bytes()));
                }
            }
        }
        return read;
    }

    /** Resource: {@code repeated KeyValue attributes = 1}; KeyValue: key = 1, AnyValue value = 2 (string_value = 1). */
    private static String serviceName(ByteBuffer in) {
        for (Field attribute : Field.all(in)) {
            if (attribute.number() != 1) {
                continue;
            }
            String key = null;
            String value = null;
            for (Field part : Field.all(attribute.bytes())) {
                if (part.number() == 1) {
                    key = part.text();
                } else if (part.number() == 2) {
                    for (Field any : Field.all(part.bytes())) {
                        if (any.number() == 1) {
                            value = any.text();
                        }
                    }
                }
            }
            if ("service.name".equals(key)) {
                return value;
            }
        }
        return "";
    }

    /**
     * Span: trace_id = 1, span_id = 2, parent_span_id = 4, name = 5, kind = 6, start_time_unix_nano = 7,
     * end_time_unix_nano = 8.
     */
    private static Span span(String service, ByteBuffer in) {
        String traceId = "";
        String spanId = "";
        String parent = "";
        String name = "";
        Kind kind = Kind.UNSPECIFIED;
        long start = 0;
        long end = 0;
        for (Field field : Field.all(in)) {
            switch (field.number()) {
                case 1 -> traceId = field.hex();
                case 2 -> spanId = field.hex();
                case 4 -> parent = field.hex();
                case 5 -> name = field.text();
                case 6 -> kind = Kind.values()[(int) field.varint()];
                case 7 -> start = field.varint();
                case 8 -> end = field.varint();
                default -> {}
            }
        }
        return new Span(service, traceId, spanId, parent, name, kind, start, end);
    }

    /** One field of a protobuf message: its number and, by wire type, a varint (or fixed64) or the bytes it holds. */
    private record Field(int number, long varint, ByteBuffer bytes) {

        static List<Field> all(ByteBuffer message) {
            ByteBuffer in = message.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            List<Field> fields = new ArrayList<>();
            while (in.hasRemaining()) {
                long tag = varint(in);
                int number = (int) (tag >>> 3);
                switch ((int) (tag & 7)) {
                    case 0 -> fields.add(new Field(number, varint(in), null));
                    case 1 -> fields.add(new Field(number, in.getLong(), null));
                    case 2 -> {
                        int length = (int) varint(in);
                        ByteBuffer value = in.slice(in.position(), length);
                        in.position(in.position() + length);
                        fields.add(new Field(number, 0, value));
                    }
                    case 5 -> in.position(in.position() + 4);
                    default -> throw new IllegalArgumentException("not a protobuf message: wire type " + (tag & 7));
                }
            }
            return fields;
        }

        private static long varint(ByteBuffer in) {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                byte b = in.get();
                value |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    return value;
                }
            }
        }

        String text() {
            return StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
        }

        String hex() {
            byte[] raw = new byte[bytes.remaining()];
            bytes.duplicate().get(raw);
            return HexFormat.of().formatHex(raw);
        }
    }
}
