package dev.homing.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a worker URL may look like: {@code http://host:port}, no path beyond "/", no query; with
 * {@code --dp-aware}, {@code http://host:port@rank} names one data-parallel rank of that engine. Also how
 * {@code --prefill URL [BOOTSTRAP_PORT]} reads: each URL may be followed by its bootstrap port.
 */
public final class WorkerUrls {

    /** A {@code --prefill} entry: the worker's URL and its bootstrap port, or null when not given. */
    public record Prefill(String url, Integer bootstrapPort) {
    }

    private static final int MAX_PORT = 65_535;

    private WorkerUrls() {
    }

    /** What is wrong with the host and port of a URL whose authority {@link URI} could not read as host:port. */
    private static String authorityProblem(String url, String authority) {
        if (authority == null || authority.isEmpty()) {
            return "'" + url + "' has no host";
        }
        int colon = authority.lastIndexOf(':');
        if (colon > authority.lastIndexOf(']')) {
            String port = authority.substring(colon + 1);
            if (!port.chars().allMatch(Character::isDigit)) {
                return "'" + url + "': port '" + port + "' is not a number 1.." + MAX_PORT;
            }
            authority = authority.substring(0, colon);
        }
        return authority.isEmpty() ? "'" + url + "' has no host"
                : "'" + url + "': '" + authority + "' is not a valid host name or IP address";
    }

    /** The problem with {@code url} in words, or null if it is a usable worker URL (a rank suffix allowed). */
    public static String problem(String url) {
        int at = url.lastIndexOf('@');
        if (at >= 0 && (rankOf(url.substring(at + 1)) < 0 || url.indexOf('@') != at)) {
            return "'" + url + "' must not hold user info; a data-parallel rank is written url@rank";
        }
        URI uri = uri(at < 0 ? url : url.substring(0, at));
        if (uri == null) {
            return "'" + url + "' is not a URL; write http://host:port";
        }
        String scheme = uri.getScheme();
        if ("grpc".equals(scheme)) {
            return "'" + url + "': gRPC workers are not supported yet; use an http:// URL";
        }
        if ("https".equals(scheme)) {
            return "'" + url + "': TLS to workers is not supported yet; use an http:// URL";
        }
        if (!"http".equals(scheme)) {
            return "'" + url + "' must start with http://";
        }
        if (uri.getHost() == null) {
            return authorityProblem(url, uri.getRawAuthority());
        }
        if (uri.getPort() == 0 || uri.getPort() > MAX_PORT) {
            return "'" + url + "': port " + uri.getPort() + " is out of range 1.." + MAX_PORT;
        }
        if (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/")
                || uri.getRawQuery() != null) {
            return "'" + url + "' must not have a path or query";
        }
        return null;
    }

    /** The URL without a trailing slash, so that it can serve as the worker's identity. */
    public static String normalize(String url) {
        int at = url.lastIndexOf('@');
        if (at > 0 && url.charAt(at - 1) == '/') {
            return url.substring(0, at - 1) + url.substring(at);
        }
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** The data-parallel rank a worker URL names ({@code url@rank}), or null for a whole engine. */
    public static Integer rank(String url) {
        int at = url.lastIndexOf('@');
        return at < 0 ? null : rankOf(url.substring(at + 1));
    }

    /** The engine's own URL: {@code url} without its rank. */
    public static String engine(String url) {
        int at = url.lastIndexOf('@');
        return at < 0 ? url : url.substring(0, at);
    }

    /**
     * The problem with a {@code --prefill} value (its arguments in order, each URL followed by at most one bootstrap
     * port), or null.
     */
    public static String prefillProblem(List<String> values) {
        boolean portAllowed = false;
        for (String value : words(values)) {
            if (!value.isEmpty() && Character.isDigit(value.charAt(0))) {
                if (!portAllowed) {
                    return ": '" + value + "' must follow a prefill URL, as its bootstrap port";
                }
                int port = rankOf(value);
                if (port < 1 || port > 65_535) {
                    return ": bootstrap port '" + value + "' must be 1..65535";
                }
                portAllowed = false;
            } else {
                String problem = problem(value);
                if (problem != null) {
                    return ": " + problem;
                }
                portAllowed = true;
            }
        }
        return null;
    }

    /** The prefill workers of a {@code --prefill} value that passed {@link #prefillProblem}. */
    public static List<Prefill> prefills(List<String> values) {
        List<Prefill> prefills = new ArrayList<>();
        for (String value : words(values)) {
            if (Character.isDigit(value.charAt(0))) {
                Prefill last = prefills.removeLast();
                prefills.add(new Prefill(last.url(), Integer.valueOf(value)));
            } else {
                prefills.add(new Prefill(normalize(value), null));
            }
        }
        return List.copyOf(prefills);
    }

    /** The values split at blanks as well: a YAML file may write one entry as "URL PORT". */
    private static List<String> words(List<String> values) {
        List<String> words = new ArrayList<>();
        for (String value : values) {
            for (String word : value.strip().split("\\s+")) {
                if (!word.isEmpty()) {
                    words.add(word);
                }
            }
        }
        return words;
    }

    /** A non-negative decimal of at most nine digits, or -1. */
    private static int rankOf(String text) {
        if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Integer.parseInt(text);
    }

    /** {@code url} parsed, or null when it is not a URL. */
    static URI uri(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
