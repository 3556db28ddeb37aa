package dev.homing.gateway.security;

import dev.homing.gateway.security.WorkerHostAllowList.Allowed;
import dev.homing.gateway.security.WorkerHostAllowList.Refused;
import org.junit.jupiter.api.Test;

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

    @Test
    void theHostOfAConfiguredWorkerIsAllowed() {
        assertThat(defaults.check("http://gpu-1.internal:30001")).isInstanceOf(Allowed.class);
        assertThat(defaults.check("http://10.0.0.20:8000")).isInstanceOf(Allowed.class);
    }

    @Test
    void anotherHostOnTheSameNetworkIsRefusedByDefault() {
        assertThat(defaults.check("http://gpu-2.internal:30000")).isInstanceOf(Refused.class);
        assertThat(defaults.check("http://10.0.0.21:30000")).isInstanceOf(Refused.class);
    }

    @Test
    void ipv4LoopbackIsAllowedByDefault() {
        assertThat(defaults.check("http://127.0.0.1:30000")).isInstanceOf(Allowed.class);
        assertThat(defaults.check("http://127.5.6.7:30000")).isInstanceOf(Allowed.class);
    }

    @Test
    void ipv6LoopbackIsAllowedByDefault() {
        assertThat(defaults.check("http://[::1]:30000")).isInstanceOf(Allowed.class);
    }

    @Test
    void anIpv4MappedIpv6LoopbackCountsAsLoopback() {
        assertThat(defaults.check("http://[::ffff:127.0.0.1]:30000")).isInstanceOf(Allowed.class);
    }

    @Test
    void localhostByNameIsAllowedByDefault() {
        assertThat(defaults.check("http://localhost:30000")).isInstanceOf(Allowed.class);
    }

    @Test
    void theCloudMetadataAddressIsRefused() {
        assertThat(defaults.check("http://169.254.169.254:80")).isInstanceOf(Refused.class);
    }

    @Test
    void aNameThatResolvesToAForbiddenAddressIsRefused() {
        Refused r = (Refused) defaults.check("http://rebind.evil.example:80");

        assertThat(r.reason()).contains("169.254.169.254").contains("not in the worker host allow list");
    }

    @Test
    void theUnspecifiedAddressIsAlwaysRefused() {
        WorkerHostAllowList any = WorkerHostAllowList.of(List.of("*"), resolver);

        assertThat(any.check("http://0.0.0.0:30000")).isInstanceOf(Refused.class);
        assertThat(any.check("http://[::]:30000")).isInstanceOf(Refused.class);
    }

    @Test
    void aStarEntryAllowsAnyOtherHost() {
        WorkerHostAllowList any = WorkerHostAllowList.of(List.of("*"), resolver);

        assertThat(any.check("http://10.9.9.9:30000")).isInstanceOf(Allowed.class);
    }

    @Test
    void aCidrEntryAllowsEveryAddressInsideIt() {
        WorkerHostAllowList list = WorkerHostAllowList.of(List.of("10.0.0.0/24"), resolver);

        assertThat(list.check("http://10.0.0.255:1")).isInstanceOf(Allowed.class);
        assertThat(list.check("http://gpu-2.internal:1")).isInstanceOf(Allowed.class);
        assertThat(list.check("http://10.0.1.0:1")).isInstanceOf(Refused.class);
    }

    @Test
    void aPrefixThatIsNotAByteBoundaryIsHonoured() {
        WorkerHostAllowList list = WorkerHostAllowList.of(List.of("10.0.0.0/28"), resolver);

        assertThat(list.check("http://10.0.0.15:1")).isInstanceOf(Allowed.class);
        assertThat(list.check("http://10.0.0.16:1")).isInstanceOf(Refused.class);
    }

    @Test
    void anIpv6BlockAllowsItsAddresses() {
        WorkerHostAllowList list = WorkerHostAllowList.of(List.of("fd00::/8"), resolver);

        assertThat(list.check("http://[fd12:3456::1]:1")).isInstanceOf(Allowed.class);
        assertThat(list.check("http://[fe80::1]:1")).isInstanceOf(Refused.class);
    }

    @Test
    void aNameWithOneAddressOutsideTheListIsRefused() {
        WorkerHostAllowList list = WorkerHostAllowList.of(List.of("10.0.0.0/8"), resolver);

        assertThat(list.check("http://dual.internal:1")).isInstanceOf(Refused.class);
    }

    @Test
    void aSuffixPatternMatchesSubdomainsOnly() {
        WorkerHostAllowList list = WorkerHostAllowList.of(List.of("*.svc.cluster.local"), resolver);

        assertThat(list.check("http://a.svc.cluster.local:1")).isInstanceOf(Allowed.class);
        assertThat(list.check("http://svc.cluster.local:1")).isInstanceOf(Refused.class);
        assertThat(list.check("http://evilsvc.cluster.local:1")).isInstanceOf(Refused.class);
    }

    @Test
    void namesCompareIgnoringCaseAndATrailingDot() {
        assertThat(defaults.check("http://GPU-1.Internal.:30000")).isInstanceOf(Allowed.class);
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
    void urlsWithUserInfoOrAnotherSchemeAreRefused() {
        assertThat(defaults.check("http://user@127.0.0.1:1")).isInstanceOf(Refused.class);
        assertThat(defaults.check("ftp://127.0.0.1:1")).isInstanceOf(Refused.class);
        assertThat(defaults.check("not a url")).isInstanceOf(Refused.class);
    }

    @Test
    void aMalformedCidrIsRefusedAtStart() {
        assertThatThrownBy(() -> WorkerHostAllowList.of(List.of("10.0.0.0/33"), resolver))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WorkerHostAllowList.of(List.of("gpu/8"), resolver))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
