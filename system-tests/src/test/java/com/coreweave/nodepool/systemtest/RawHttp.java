package com.coreweave.nodepool.systemtest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An HTTP/1.1 client on a bare socket, for what a well-behaved client never does: stop in the middle of its headers, or
 * send a chunked body that never ends.
 */
final class RawHttp implements AutoCloseable {

    /** What a chunk of an unfinished body is: 64 KiB of JSON-ish bytes. */
    static final int CHUNK = 64 * 1024;

    private final Socket socket;

    private RawHttp(Socket socket) {
        this.socket = socket;
    }

    static RawHttp connect(URI base) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
        return new RawHttp(socket);
    }

    /** The request line and headers of a chunked POST of {@code path}, with {@code authorization} unless null. */
    static String chunkedPost(URI base, String path, String authorization) {
        return "POST " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n") + "\r\n";
    }

    void send(String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /**
     * Sends chunks of a body up to {@code bytes}, one each {@code pauseMillis}, never its last chunk; stops early when
     * the server closed the connection. The bytes the socket took (some may sit in the kernel's buffers, unread).
     */
    long sendUnfinishedBody(long bytes, long pauseMillis) {
        byte[] chunk = new byte[CHUNK];
        Arrays.fill(chunk, (byte) 'a');
        byte[] head = (Integer.toHexString(CHUNK) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] tail = "\r\n".getBytes(StandardCharsets.US_ASCII);
        long sent = 0;
        try {
            OutputStream out = socket.getOutputStream();
            while (sent < bytes) {
                out.write(head);
                out.write(chunk);
                out.write(tail);
                out.flush();
                sent += CHUNK;
                Thread.sleep(pauseMillis);
            }
            out.flush();
        } catch (IOException closedByServer) {
            // The server answered and closed: what was not sent is what it refused to read.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sent;
    }

    /** Everything the server sends until it closes the connection, or until {@code timeoutMillis} of silence. */
    String readUntilClosed(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                read.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException stillOpen) {
            throw new IllegalStateException("the server kept the connection open past " + timeoutMillis + " ms; read: "
                    + read.toString(StandardCharsets.UTF_8));
        } catch (IOException reset) {
            // A reset after the answer: closed all the same.
        }
        return read.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
