package dev.homing.gateway.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A bare HTTP/1.1 exchange over a socket, for requests a well-behaved client refuses to send: a lying or non-numeric
 * Content-Length, a path with dot segments, any body bytes. One request per connection ({@code Connection: close}).
 */
final class RawHttp {

    /** What came back; {@code status} is 0 when the server closed without answering. */
    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private static final int TIMEOUT_MS = 10_000;

    private RawHttp() {
    }

    /**
     * Sends one request on a connection of its own. {@code headers} are sent as given; Content-Length is added from
     * the body unless the headers name one or {@code chunked} is set (then the body goes as 8 KiB chunks). Unchunked,
     * head and body go in one write, so no pause of the client can fall between them.
     */
    static Response exchange(int port, String method, String path, Map<String, String> headers, byte[] body,
                             boolean chunked) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
                    .append("host: 127.0.0.1:").append(port).append("\r\nconnection: close\r\n");
            headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
            if (chunked) {
                head.append("transfer-encoding: chunked\r\n");
            } else if (headers.keySet().stream().noneMatch(k -> k.equalsIgnoreCase("content-length"))
                    && (body.length > 0 || !method.equals("GET"))) {
                head.append("content-length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            OutputStream out = socket.getOutputStream();
            byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
            try {
                if (chunked) {
                    out.write(headBytes);
                    for (int off = 0; off < body.length; off += 8192) {
                        int n = Math.min(8192, body.length - off);
                        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.write(body, off, n);
                        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                } else {
                    byte[] whole = Arrays.copyOf(headBytes, headBytes.length + body.length);
                    System.arraycopy(body, 0, whole, headBytes.length, body.length);
                    out.write(whole);
                }
                out.flush();
            } catch (IOException answeredEarly) {
                // The server may answer (413) and close before reading the whole body; read what it said.
            }
            return read(socket.getInputStream());
        }
    }

    /**
     * What a request sent byte for byte got back: the first response, the bytes that came after it (another
     * response, if the server read a second request out of the bytes), and whether the server closed the connection.
     */
    record Conversation(Response first, byte[] after, boolean closed) {
    }

    /** Sends {@code request} exactly as given and reads until the server closes or goes quiet for the timeout. */
    static Conversation sendRaw(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            try {
                socket.getOutputStream().write(request);
                socket.getOutputStream().flush();
            } catch (IOException answeredEarly) {
                // The server may answer and close before reading everything; read what it said.
            }
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            boolean closed;
            try {
                socket.getInputStream().transferTo(received);
                closed = true;
            } catch (java.net.SocketTimeoutException quiet) {
                closed = false;
            } catch (IOException reset) {
                closed = true;
            }
            byte[] all = received.toByteArray();
            int firstLength = firstResponseLength(all);
            return new Conversation(read(new java.io.ByteArrayInputStream(all, 0, firstLength)),
                    java.util.Arrays.copyOfRange(all, firstLength, all.length), closed);
        }
    }

    /** The length of the first response in {@code all}: its head and a body of its Content-Length (else the rest). */
    private static int firstResponseLength(byte[] all) {
        String raw = new String(all, StandardCharsets.ISO_8859_1);
        int headEnd = raw.indexOf("\r\n\r\n");
        if (headEnd < 0) {
            return all.length;
        }
        String length = headers(raw.substring(0, headEnd)).get("content-length");
        return length == null ? all.length : (int) Math.min(all.length, headEnd + 4 + Long.parseLong(length));
    }

    /**
     * Reads the head, then the body by its Content-Length, or to the end of the stream. A server may answer early
     * (413) and leave the connection open for the body it declined, so a timeout keeps what was read.
     */
    static Response read(InputStream in) throws IOException {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int headEnd = -1;
        long wanted = Long.MAX_VALUE;
        try {
            int n;
            while (received.size() < wanted && (n = in.read(buffer)) >= 0) {
                received.write(buffer, 0, n);
                if (headEnd < 0) {
                    headEnd = received.toString(StandardCharsets.ISO_8859_1).indexOf("\r\n\r\n");
                    if (headEnd >= 0) {
                        String length = headers(received.toString(StandardCharsets.ISO_8859_1).substring(0, headEnd))
                                .get("content-length");
                        if (length != null) {
                            wanted = headEnd + 4 + Long.parseLong(length);
                        }
                    }
                }
            }
        } catch (IOException timeoutOrReset) {
            // Keep what arrived.
        }
        byte[] all = received.toByteArray();
        String raw = new String(all, StandardCharsets.ISO_8859_1);
        int end = raw.indexOf("\r\n\r\n");
        if (!raw.startsWith("HTTP/") || end < 0) {
            return new Response(0, Map.of(), all);
        }
        int status = Integer.parseInt(raw.substring(0, raw.indexOf("\r\n")).split(" ")[1]);
        Map<String, String> headers = headers(raw.substring(0, end));
        byte[] body = java.util.Arrays.copyOfRange(all, end + 4, all.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Response(status, headers, body);
    }

    private static Map<String, String> headers(String head) {
        String[] lines = head.split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        return headers;
    }

    private static byte[] dechunk(byte[] chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int pos = 0;
        while (pos < chunked.length) {
            int lineEnd = indexOfCrlf(chunked, pos);
            if (lineEnd < 0) {
                break;
            }
            String sizeText = new String(chunked, pos, lineEnd - pos, StandardCharsets.ISO_8859_1).split(";")[0].trim();
            int size = Integer.parseInt(sizeText, 16);
            if (size == 0) {
                break;
            }
            out.write(chunked, lineEnd + 2, Math.min(size, chunked.length - lineEnd - 2));
            pos = lineEnd + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOfCrlf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
