package dev.homing.cli.faults;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * One large JSON request body sent on a socket of its own, as a client uploads it: the head, then the body in 64 KiB
 * writes (with its Content-Length, or chunked) from a thread of its own, while the answer is read as soon as it
 * comes, so a gateway that refuses the body before it is all sent is heard. The body is generated, never held.
 */
final class Upload {

    private static final int PIECE = 64 * 1024;

    /**
     * What came back: the answer as the suite counts it, and how many body bytes went out before it did.
     *
     * @param answer    the answer; status 0 when the connection broke off without one
     * @param bytesSent body bytes written before the answer or the end
     */
    record Result(Answer answer, long bytesSent) {
    }

    private Upload() {
    }

    /**
     * POSTs to {@code path} a body of {@code size} bytes, the JSON object {@code {"model":MODEL,"prompt":"xxx..."}},
     * followed by a stray closing brace when not {@code wellFormed} (the gateway must read all of it to refuse it, and
     * no worker sees it); reads time out after {@code timeout}.
     */
    static Result send(String host, int port, String path, String requestId, String model, long size,
                       boolean chunked, boolean wellFormed, Duration timeout) {
        byte[] open = ("{\"model\":\"" + model + "\",\"prompt\":\"").getBytes(StandardCharsets.US_ASCII);
        byte[] close = (wellFormed ? "\"}" : "\"}}").getBytes(StandardCharsets.US_ASCII);
        long[] sent = {0};
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nhost: " + host + ":" + port + "\r\nx-request-id: " + requestId
                    + "\r\ncontent-type: application/json\r\n" + (chunked ? "transfer-encoding: chunked"
                    : "content-length: " + size) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            Thread writer = Thread.ofPlatform().daemon().name("upload-" + requestId).start(() -> {
                try {
                    writeBody(out, open, close, size, chunked, sent);
                } catch (IOException answeredEarly) {
                    // The gateway answered and closed before the whole body was sent.
                }
            });
            Answer answer = read(socket.getInputStream(), requestId);
            writer.interrupt();
            return new Result(answer, sent[0]);
        } catch (IOException e) {
            return new Result(Answer.broken(requestId, false, e), sent[0]);
        }
    }

    private static void writeBody(OutputStream out, byte[] open, byte[] close, long size, boolean chunked,
                                  long[] sent) throws IOException {
        byte[] filler = new byte[PIECE];
        Arrays.fill(filler, (byte) 'x');
        long left = size;
        byte[] piece = Arrays.copyOf(open, PIECE);
        int first = open.length;
        System.arraycopy(filler, 0, piece, first, PIECE - first);
        while (left > 0 && !Thread.currentThread().isInterrupted()) {
            int n = (int) Math.min(PIECE, left);
            if (n == left) {
                // The last piece ends the JSON string and object.
                piece = Arrays.copyOf(filler, n);
                System.arraycopy(close, 0, piece, n - close.length, close.length);
            }
            if (chunked) {
                out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            out.write(piece, 0, n);
            if (chunked) {
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            sent[0] += n;
            left -= n;
            piece = filler;
        }
        if (chunked) {
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.flush();
    }

    /** One response with a Content-Length body (the gateway's own answers have one), read from the socket. */
    private static Answer read(InputStream in, String requestId) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            if (head.size() >= 4 && head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                break;
            }
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        if (!text.startsWith("HTTP/1.")) {
            return Answer.broken(requestId, false, new IOException("no answer: " + text));
        }
        int status = Integer.parseInt(text.substring(9, 12));
        String lower = text.toLowerCase(Locale.ROOT);
        String retryAfter = header(lower, "retry-after");
        String length = header(lower, "content-length");
        byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length));
        return new Answer(requestId, false, status, retryAfter, new String(body, StandardCharsets.UTF_8), null);
    }

    private static String header(String lowerHead, String name) {
        int at = lowerHead.indexOf("\r\n" + name + ":");
        if (at < 0) {
            return null;
        }
        int from = at + name.length() + 3;
        return lowerHead.substring(from, lowerHead.indexOf("\r\n", from)).trim();
    }
}
