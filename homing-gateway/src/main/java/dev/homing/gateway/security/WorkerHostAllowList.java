package dev.homing.gateway.security;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which hosts {@code POST /workers} may register, so that a request cannot point the gateway at an arbitrary
 * internal address (a cloud metadata service, a database, an admin port).
 *
 * <p>Entries ({@code --worker-host-allow-list}, a Homing addition) are host names ({@code gpu-3.internal}), name
 * suffix patterns ({@code *.svc.cluster.local}), IP addresses ({@code 10.1.2.3}, {@code ::1}) or CIDR blocks
 * ({@code 10.0.0.0/8}, {@code fd00::/8}); {@code *} alone allows any host (the explicit opt-out). The default list is
 * the hosts of {@code --worker-urls} plus loopback ({@code localhost}, {@code 127.0.0.0/8}, {@code ::1}): the
 * workers the operator named, and sidecars on the same machine.
 *
 * <p>Rules, in order: the URL must be {@code http} with a host; the host is resolved exactly once (DNS, through the
 * injected resolver); the unspecified address ({@code 0.0.0.0}, {@code ::}) and multicast are always refused; a host
 * whose name matches a name entry is allowed; otherwise every address it resolves to must lie in an address entry
 * (IPv4-mapped IPv6 addresses count as their IPv4 address). The verdict carries the address it was judged on, and
 * the gateway connects to that address for the worker's whole life (keeping the name for the Host header; see
 * {@code UpstreamTarget}), so a DNS answer that changes after the check (rebinding) cannot redirect it.
 *
 * <p>Immutable and thread-safe. {@link #check} may block on DNS: call it off the event loop.
 */
public final class WorkerHostAllowList {

    /** Turns a host name into addresses; {@link InetAddress#getAllByName} in production, a table in tests. */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** The verdict on one worker URL. */
    public sealed interface Verdict {
    }

    /** Allowed; connect to {@code address}. */
    public record Allowed(String host, InetAddress address) implements Verdict {
    }

    /** Refused; answer 403 with {@code reason}. */
    public record Refused(String reason) implements Verdict {
    }

    /** Loopback, always part of the default list: a sidecar engine on the same machine is the common case. */
    private static final List<String> LOOPBACK = List.of("localhost", "127.0.0.0/8", "::1/128");

    private final Set<String> names;
    private final List<String> nameSuffixes;
    private final List<Cidr> blocks;
    private final boolean any;
    private final Resolver resolver;

    private WorkerHostAllowList(List<String> entries, Resolver resolver) {
        Set<String> exact = new LinkedHashSet<>();
        List<String> suffixes = new ArrayList<>();
        List<Cidr> cidrs = new ArrayList<>();
        boolean anyHost = false;
        for (String raw : entries) {
            String entry = raw.strip().toLowerCase(Locale.ROOT);
            if (entry.equals("*")) {
                anyHost = true;
            } else if (entry.startsWith("*.")) {
                suffixes.add(entry.substring(1));
            } else if (entry.contains("/") || isAddressLiteral(entry)) {
                cidrs.add(Cidr.parse(entry));
            } else if (!entry.isEmpty()) {
                exact.add(withoutTrailingDot(entry));
            }
        }
        this.names = Set.copyOf(exact);
        this.nameSuffixes = List.copyOf(suffixes);
        this.blocks = List.copyOf(cidrs);
        this.any = anyHost;
        this.resolver = resolver;
    }

    /** A list of exactly {@code entries}. */
    public static WorkerHostAllowList of(List<String> entries, Resolver resolver) {
        return new WorkerHostAllowList(entries, resolver);
    }

    /** The default list: the hosts of {@code workerUrls} plus loopback. */
    public static WorkerHostAllowList defaults(List<String> workerUrls, Resolver resolver) {
        List<String> entries = new ArrayList<>(LOOPBACK);
        for (String url : workerUrls) {
            String host = hostOf(url);
            if (host != null) {
                entries.add(host);
            }
        }
        return new WorkerHostAllowList(entries, resolver);
    }

    /** The verdict on a worker URL such as {@code http://10.0.0.7:30000}. */
    public Verdict check(String url) {
        String host = hostOf(url);
        if (host == null) {
            return new Refused("'" + url + "' is not an http URL with a host");
        }
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (UnknownHostException e) {
            return new Refused("cannot resolve worker host '" + host + "'");
        }
        if (addresses == null || addresses.length == 0) {
            return new Refused("cannot resolve worker host '" + host + "'");
        }
        for (InetAddress a : addresses) {
            if (a.isAnyLocalAddress() || a.isMulticastAddress()) {
                return new Refused("worker host '" + host + "' resolves to " + a.getHostAddress()
                        + ", which is not a worker address");
            }
        }
        if (any || !isAddressLiteral(host) && nameAllowed(host)) {
            return new Allowed(host, addresses[0]);
        }
        for (InetAddress a : addresses) {
            if (blocks.stream().noneMatch(b -> b.contains(a))) {
                return new Refused("worker host '" + host + "' (" + a.getHostAddress()
                        + ") is not in the worker host allow list");
            }
        }
        return new Allowed(host, addresses[0]);
    }

    private boolean nameAllowed(String host) {
        if (names.contains(host)) {
            return true;
        }
        for (String suffix : nameSuffixes) {
            // "*.example.com" allows "a.example.com" but not "example.com" itself nor "evilexample.com".
            if (host.endsWith(suffix) && host.length() > suffix.length()) {
                return true;
            }
        }
        return false;
    }

    /** The lower-case host of an http URL without brackets or trailing dot, or null. */
    static String hostOf(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return null;
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getRawUserInfo() != null) {
            return null;
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return withoutTrailingDot(host);
    }

    private static String withoutTrailingDot(String host) {
        return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    }

    /** An IPv6 literal, or dotted digits (which the JDK reads as IPv4 without asking DNS). */
    static boolean isAddressLiteral(String s) {
        return s.contains(":") || !s.isEmpty() && s.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9');
    }

    /** An address block; IPv4-mapped IPv6 addresses are compared as IPv4. */
    record Cidr(byte[] network, int prefixBits) {

        static Cidr parse(String entry) {
            int slash = entry.indexOf('/');
            String address = slash < 0 ? entry : entry.substring(0, slash);
            if (!isAddressLiteral(address)) {
                throw new IllegalArgumentException("'" + entry + "' is not an IP address or CIDR block");
            }
            byte[] bytes;
            try {
                // A literal: parsed locally, no DNS query.
                bytes = canonical(InetAddress.getByName(address));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("'" + entry + "' is not an IP address or CIDR block");
            }
            int bits = bytes.length * 8;
            int prefix = bits;
            if (slash >= 0) {
                try {
                    prefix = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + entry + "' has a bad prefix length");
                }
                if (bytes.length == 4 && address.contains(":")) {
                    // ::ffff:a.b.c.d/N was written against 128 bits.
                    prefix -= 96;
                }
                if (prefix < 0 || prefix > bits) {
                    throw new IllegalArgumentException("'" + entry + "' has a bad prefix length");
                }
            }
            return new Cidr(bytes, prefix);
        }

        boolean contains(InetAddress address) {
            byte[] a = canonical(address);
            if (a.length != network.length) {
                return false;
            }
            int full = prefixBits / 8;
            for (int i = 0; i < full; i++) {
                if (a[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefixBits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = 0xff << (8 - rest) & 0xff;
            return (a[full] & mask) == (network[full] & mask);
        }

        private static byte[] canonical(InetAddress address) {
            byte[] b = address.getAddress();
            if (b.length == 16 && isV4Mapped(b)) {
                return new byte[] {b[12], b[13], b[14], b[15]};
            }
            return b;
        }

        private static boolean isV4Mapped(byte[] b) {
            for (int i = 0; i < 10; i++) {
                if (b[i] != 0) {
                    return false;
                }
            }
            return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        }
    }
}
