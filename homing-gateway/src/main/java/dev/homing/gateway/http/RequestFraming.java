package dev.homing.gateway.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The framing rules of RFC 9112 that the HTTP decoder leaves to the server, checked on every HTTP/1.x request before
 * anything routes it. A request that breaks one is answered in the OpenAI error shape with {@code Connection: close}
 * and its connection is closed, so whatever else the client sent on it (a request smuggled behind an ambiguous body)
 * is never read as a request.
 *
 * <ul>
 *   <li>Transfer-Encoding (section 6.1): {@code chunked} must be the final coding and appear once, else 400: the
 *       body's end cannot be found reliably. Any other coding before it ({@code gzip, chunked}) gets 501: the gateway
 *       decodes none, and forwarding the bytes undecoded would hand the worker something else than was sent. A value
 *       that is not a list of tokens gets 400; that includes one folded over two lines (obs-fold, section 5.2), which
 *       the decoder joins with a space. In HTTP/1.0 the header is not defined and its presence makes the framing
 *       faulty: 400.
 *   <li>Host (section 3.2): exactly one Host header in HTTP/1.1 (none allowed in HTTP/1.0, never two), with a value
 *       that is a host and optional port, else 400.
 * </ul>
 * A request with both Content-Length and a chunked Transfer-Encoding never gets here: the decoder would drop the
 * Content-Length, so {@link StrictRequestDecoder} refuses it first. HTTP/2 frames its own messages and is left alone.
 * Thread-safe.
 */
public final class RequestFraming {

    private static final String CHUNKED = "chunked";

    private final EdgeRefusals refusals;

    public RequestFraming(EdgeRefusals refusals) {
        this.refusals = refusals;
    }

    /** Answers and closes when the request's framing breaks a rule; whether it did. */
    public boolean refused(HttpServerRequest request) {
        ApiError error = problem(request.version(), request.headers());
        if (error == null) {
            return false;
        }
        refusals.refused(error.code());
        error.sendAndClose(request);
        return true;
    }

    /** What is wrong with a request head's framing, or null when nothing is. */
    static ApiError problem(HttpVersion version, MultiMap headers) {
        if (version == HttpVersion.HTTP_2) {
            return null;
        }
        List<String> codings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
        ApiError error = codings.isEmpty() ? null : transferEncoding(version, codings);
        return error != null ? error : host(version, headers.getAll(HttpHeaderNames.HOST));
    }

    private static ApiError transferEncoding(HttpVersion version, List<String> values) {
        if (version == HttpVersion.HTTP_1_0) {
            return ApiError.badRequest("Transfer-Encoding is not defined in HTTP/1.0; send Content-Length");
        }
        List<String> codings = new ArrayList<>();
        for (String value : values) {
            if (!value.equals(value.strip())) {
                return ApiError.badRequest("Transfer-Encoding is folded over several lines");
            }
            for (String element : value.split(",", -1)) {
                String coding = element.strip();
                if (coding.isEmpty()) {
                    continue;
                }
                if (!isToken(coding)) {
                    return ApiError.badRequest("Transfer-Encoding '" + value + "' is not a list of codings");
                }
                codings.add(coding.toLowerCase(Locale.ROOT));
            }
        }
        if (codings.isEmpty() || !codings.getLast().equals(CHUNKED)) {
            return ApiError.badRequest("chunked must be the final transfer coding");
        }
        if (codings.indexOf(CHUNKED) != codings.size() - 1) {
            return ApiError.badRequest("chunked may be applied only once");
        }
        if (codings.size() > 1) {
            return new ApiError(501, "unsupported_transfer_encoding", "Transfer coding '" + codings.getFirst()
                    + "' is not implemented; send the body chunked only");
        }
        return null;
    }

    private static ApiError host(HttpVersion version, List<String> hosts) {
        if (hosts.size() > 1) {
            return ApiError.badRequest("More than one Host header");
        }
        if (hosts.isEmpty()) {
            return version == HttpVersion.HTTP_1_0 ? null : ApiError.badRequest("An HTTP/1.1 request needs a Host header");
        }
        return isHostAndPort(hosts.getFirst()) ? null : ApiError.badRequest("Host is not a host name and port");
    }

    /** RFC 9110 token characters only, at least one; a coding with parameters ({@code ;q=1}) is none we take. */
    private static boolean isToken(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128 || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
                return false;
            }
        }
        return !s.isEmpty();
    }

    /**
     * {@code uri-host [":" port]} of RFC 3986: an IP literal in brackets, or a run of name characters (IPv4 included),
     * then optional digits after a colon. Empty is allowed: a request whose target has no authority sends it so.
     */
    static boolean isHostAndPort(String value) {
        int end = value.length();
        int i = 0;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) {
                return false;
            }
            for (int k = 1; k < close; k++) {
                char c = value.charAt(k);
                if (!(isHex(c) || c == ':' || c == '.' || c == 'v' || c == 'V')) {
                    return false;
                }
            }
            i = close + 1;
        } else {
            while (i < end && isNameChar(value.charAt(i))) {
                i++;
            }
        }
        if (i == end) {
            return true;
        }
        if (value.charAt(i) != ':') {
            return false;
        }
        for (int k = i + 1; k < end; k++) {
            if (value.charAt(k) < '0' || value.charAt(k) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Unreserved, percent (of an escape) and sub-delimiter characters: what a registered name may hold. */
    private static boolean isNameChar(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || "-._~%!$&'()*+,;=".indexOf(c) >= 0);
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }
}
