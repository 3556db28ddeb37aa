package dev.homing.gateway.security;

import dev.homing.gateway.security.WorkerHostAllowList.Allowed;
import dev.homing.gateway.security.WorkerHostAllowList.Refused;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkerHostAllowListTest {

    /** DNS as a table: names resolve to the listed literals; literals resolve to themselves; lookups are counted. */
    private final List<String> lookups = new ArrayList<>();
    private final Map<String, List<String>> dns = Map.of(
            "gpu-1.internal", List.of("10.0.0.11"),
            "gpu-2.internal", List.of("10.0.0.12"),
            "rebind.evil.example", List.of("169.254.169.254"),
            "dual.internal", List.of("10.0.0.13", "192.168.7.7"),
            "a.svc.cluster.local", List.of("10.96.0.5"),
            "localhost", List.of("127.0.0.1", "::1"));

    private final WorkerHostAllowList.Resolver resolver = host -> {
        lookups.add(host);
        if (WorkerHostAllowList.isAddressLiteral(host)) {
            return new InetAddress[] {InetAddress.getByName(host)};
        }
        List<String> ips = dns.get(host);
        if (ips == null) {
            throw new UnknownHostException(host);
        }
        InetAddress[] out = new InetAddress[ips.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = InetAddress.getByAddress(host, InetAddress.getByName(ips.get(i)).getAddress());
        }
        return out;
    };

    private final WorkerHostAllowList defaults = WorkerHostAllowList.defaults(
            List.of("http://gpu-1.internal:30000", "http://10.0.0.20:30000"), resolver);

    /**
     * The default list: the hosts of the configured workers (names compared ignoring case and a trailing dot) and
     * loopback (IPv4, IPv6, IPv4-mapped IPv6, localhost by name) are allowed; any other host on the same network, the
     * cloud metadata address, a URL with user info, another scheme or no URL at all is refused.
     */
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            http://gpu-1.internal:30001       | allowed
            http://10.0.0.20:8000             | allowed
            http://GPU-1.Internal.:30000      | allowed
            http://gpu-2.internal:30000       | refused
            http://10.0.0.21:30000            | refused
            http://127.0.0.1:30000            | allowed
            http://127.5.6.7:30000            | allowed
            http://[::1]:30000                | allowed
            http://[::ffff:127.0.0.1]:30000   | allowed
            http://localhost:30000            | allowed
            http://169.254.169.254:80         | refused
            http://user@127.0.0.1:1           | refused
            ftp://127.0.0.1:1                 | refused
            not a url                         | refused
            """)
    void byDefaultOnlyTheConfiguredWorkersHostsAndLoopbackAreAllowed(String url, String verdict) {
        assertThat(defaults.check(url)).isInstanceOf(verdict(verdict));
    }

    @Test
    void aNameThatResolvesToAForbiddenAddressIsRefused() {
        Refused r = (Refused) defaults.check("http://rebind.evil.example:80");

        assertThat(r.reason()).contains("169.254.169.254").contains("not in the worker host allow list");
    }

    /**
     * One entry against addresses and names: "*" allows any host but the unspecified address (always refused); a CIDR
     * block allows every address inside it, on any prefix length and for IPv6 too, and a name only when all its
     * addresses are inside; a suffix pattern allows subdomains only.
     */
    @ParameterizedTest(name = "{0} against {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            *                   | http://0.0.0.0:30000              | refused
            *                   | http://[::]:30000                 | refused
            *                   | http://10.9.9.9:30000             | allowed
            10.0.0.0/24         | http://10.0.0.255:1               | allowed
            10.0.0.0/24         | http://gpu-2.internal:1           | allowed
            10.0.0.0/24         | http://10.0.1.0:1                 | refused
            10.0.0.0/28         | http://10.0.0.15:1                | allowed
            10.0.0.0/28         | http://10.0.0.16:1                | refused
            fd00::/8            | http://[fd12:3456::1]:1           | allowed
            fd00::/8            | http://[fe80::1]:1                | refused
            10.0.0.0/8          | http://dual.internal:1            | refused
            *.svc.cluster.local | http://a.svc.cluster.local:1      | allowed
            *.svc.cluster.local | http://svc.cluster.local:1        | refused
            *.svc.cluster.local | http://evilsvc.cluster.local:1    | refused
            """)
    void anEntryAllowsExactlyTheHostsItCovers(String entry, String url, String verdict) {
        WorkerHostAllowList list = WorkerHostAllowList.of(List.of(entry), resolver);

        assertThat(list.check(url)).isInstanceOf(verdict(verdict));
    }

    private static Class<?> verdict(String word) {
        return switch (word) {
            case "allowed" -> Allowed.class;
            case "refused" -> Refused.class;
            default -> throw new IllegalArgumentException(word);
        };
    }

    @Test
    void theHostIsResolvedOnceAndTheVerdictCarriesTheAddressToConnectTo() throws Exception {
        Allowed a = (Allowed) defaults.check("http://gpu-1.internal:30000");

        assertThat(lookups).containsExactly("gpu-1.internal");
        assertThat(a.address()).isEqualTo(InetAddress.getByName("10.0.0.11"));
    }

    @Test
    void anUnknownHostIsRefused() {
        assertThat(defaults.check("http://nowhere.internal:1")).isEqualTo(
                new Refused("cannot resolve worker host 'nowhere.internal'"));
    }

    @Test
    void aMalformedCidrIsRefusedAtStart() {
        assertThatThrownBy(() -> WorkerHostAllowList.of(List.of("10.0.0.0/33"), resolver))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WorkerHostAllowList.of(List.of("gpu/8"), resolver))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
