package dev.homing.sim.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP/1.1 exchange over a plain socket, for the tests that need to hang up mid-answer or to see exactly how an
 * answer ended (EOF, silence), which a full HTTP client hides.
 */
final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
    }

    static RawHttp post(SimEngineServer engine, String path, String json) {
        try {
            RawHttp http = new RawHttp(new Socket("127.0.0.1", engine.port()));
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n";
            http.socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            http.socket.getOutputStream().write(body);
            http.socket.getOutputStream().flush();
            return http;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads until {@code marker} has arrived; fails after {@code timeoutMillis} of silence. */
    String readUntil(String marker, int timeoutMillis) {
        try {
            socket.setSoTimeout(timeoutMillis);
            byte[] buffer = new byte[4096];
            while (!text().contains(marker)) {
                int n = in.read(buffer);
                if (n < 0) {
                    throw new AssertionError("connection closed before '" + marker + "': " + text());
                }
                received.write(buffer, 0, n);
            }
            return text();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads until the server closes the connection or stays silent for {@code silenceMillis}.
     *
     * @return true if the server closed the connection, false if it went silent
     */
    boolean readUntilClosedOrSilent(int silenceMillis) {
        try {
            socket.setSoTimeout(silenceMillis);
            byte[] buffer = new byte[4096];
            while (true) {
                int n = in.read(buffer);
                if (n < 0) {
                    return true;
                }
                received.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    String text() {
        return received.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
