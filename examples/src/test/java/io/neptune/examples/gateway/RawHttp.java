package io.neptune.examples.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection driven byte by byte, for what {@link java.net.http.HttpClient} will not
 * do: pipelining, {@code Expect} headers, chunked bodies, and watching the server close the socket.
 * A {@code Host: x} header written as text becomes this connection's host ({@code 127.0.0.1:port}),
 * which the gateway's Host allow-list accepts.
 */
final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final int port;

    /** A parsed response. */
    record Response(int status, Map<String, String> headers, String body) {}

    RawHttp(int port) {
        this.port = port;
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(30_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code text} (CRLFs included by the caller) and flushes. */
    RawHttp write(String text) {
        return write(text.replace("\r\nHost: x\r\n", "\r\nHost: " + host() + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The {@code Host} of this connection: {@code 127.0.0.1:port}. */
    String host() {
        return "127.0.0.1:" + port;
    }

    RawHttp write(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one response with a {@code Content-Length} body. */
    Response read() {
        try {
            String statusLine = line();
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            String header;
            while (!(header = line()).isEmpty()) {
                int colon = header.indexOf(':');
                headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT), header.substring(colon + 1).trim());
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            byte[] body = in.readNBytes(length);
            return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the server has closed the connection (reads end of stream, or the socket reset). */
    boolean isClosedByServer() {
        try {
            socket.setSoTimeout(50);
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("connection closed after " + line.size() + " bytes of a line");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
