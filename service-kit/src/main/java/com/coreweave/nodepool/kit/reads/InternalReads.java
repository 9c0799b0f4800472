package com.coreweave.nodepool.kit.reads;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The paths of the reads one instance asks of another, built here for both sides: {@link RemoteReads} asks at them and
 * {@link InternalReadsResource} answers them.
 *
 * <ul>
 *   <li>A path is {@code /internal/<read>/<segment>...}, each segment URL-encoded; a service answers a read with a
 *       {@link PeerReads} bean.
 *   <li>What is answered is only the answering instance's own share, never forwarded again.
 * </ul>
 */
public final class InternalReads {

    /** Where every instance answers another's reads (hidden from the OpenAPI document). */
    public static final String ROOT = "/internal";

    private InternalReads() {}

    /** The path of {@code read} with {@code segments}, each URL-encoded: {@code /internal/<read>/<segment>...}. */
    public static String path(String read, String... segments) {
        return ROOT + "/" + read
                + Arrays.stream(segments).map(s -> "/" + segment(s)).collect(Collectors.joining());
    }

    /** A path segment or query value, URL-encoded. */
    public static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** The URL of {@code path} (from {@link #path}) on the instance at {@code host}:{@code port}. */
    static String url(String host, int port, String path) {
        return "http://" + host + ":" + port + path;
    }
}
