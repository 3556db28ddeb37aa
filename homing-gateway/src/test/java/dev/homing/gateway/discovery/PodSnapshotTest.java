package dev.homing.gateway.discovery;

import dev.homing.gateway.testing.KubernetesApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PodSnapshotTest {

    private static final DiscoverySettings SETTINGS = DiscoverySettings.of(Map.of("app", "sglang"), null);

    private static Pod pod(String ip, boolean ready, int containerPort) {
        return KubernetesApi.pod("ns", "engine", Map.of("app", "sglang"), ip, ready, containerPort);
    }

    @Test
    void aRunningReadyPodServesAtItsIpOnTheDiscoveryPort() {
        PodSnapshot snapshot = PodSnapshot.of(pod("10.1.2.3", true, 0), SETTINGS);

        assertThat(snapshot.status()).isEqualTo(PodSnapshot.Status.SERVING);
        assertThat(snapshot.url()).isEqualTo("http://10.1.2.3:80");
        assertThat(snapshot.key()).isEqualTo("ns/engine");
    }

    @Test
    void anIpv6PodIsWrittenInBrackets() {
        assertThat(PodSnapshot.of(pod("fd00::7", true, 80), SETTINGS).url()).isEqualTo("http://[fd00::7]:80");
    }

    @Test
    void aPodThatIsNotReadyOrNotRunningDoesNotServe() {
        assertThat(PodSnapshot.of(pod("10.1.2.3", false, 0), SETTINGS).status())
                .isEqualTo(PodSnapshot.Status.NOT_READY);
        Pod pending = new PodBuilder(pod("10.1.2.3", true, 0)).editStatus().withPhase("Pending").endStatus().build();
        assertThat(PodSnapshot.of(pending, SETTINGS).status()).isEqualTo(PodSnapshot.Status.NOT_READY);
    }

    @Test
    void aPodWithoutAnIpDoesNotServe() {
        PodSnapshot snapshot = PodSnapshot.of(pod(null, true, 0), SETTINGS);

        assertThat(snapshot.status()).isEqualTo(PodSnapshot.Status.NO_IP);
        assertThat(snapshot.url()).isNull();
    }

    @Test
    void aPodBeingDeletedDoesNotServeEvenWhileStillReady() {
        Pod deleting = new PodBuilder(pod("10.1.2.3", true, 0)).editMetadata()
                .withDeletionTimestamp("2026-12-01T00:00:00Z").endMetadata().build();

        assertThat(PodSnapshot.of(deleting, SETTINGS).status()).isEqualTo(PodSnapshot.Status.TERMINATING);
    }

    @Test
    void aPodDeclaringOnlyOtherPortsRunsItsServerElsewhere() {
        assertThat(PodSnapshot.of(pod("10.1.2.3", true, 8000), SETTINGS).status())
                .isEqualTo(PodSnapshot.Status.OTHER_PORT);
        assertThat(PodSnapshot.of(pod("10.1.2.3", true, 80), SETTINGS).status())
                .isEqualTo(PodSnapshot.Status.SERVING);
    }

    @Test
    void aPrefillPodsBootstrapPortAnnotationIsRead() {
        DiscoverySettings roles = new DiscoverySettings(true, Map.of(), null, 80, "sglang.ai/bootstrap-port",
                SETTINGS.relistInterval(), SETTINGS.watchSilence(), SETTINGS.drainGrace(), null,
                new DiscoverySettings.Roles(Map.of("app", "sglang"), Map.of("app", "decode")));
        Pod prefill = new PodBuilder(pod("10.1.2.3", true, 0)).editMetadata()
                .addToAnnotations("sglang.ai/bootstrap-port", "8998").endMetadata().build();

        PodSnapshot snapshot = PodSnapshot.of(prefill, roles);
        assertThat(snapshot.role()).isEqualTo(dev.homing.gateway.workers.WorkerRole.PREFILL);
        assertThat(snapshot.bootstrapPort()).isEqualTo("8998");
        assertThat(PodSnapshot.of(prefill, SETTINGS).bootstrapPort()).as("a regular worker has none").isNull();
    }

    @Test
    void inPrefillDecodeModeAPodOfNeitherRoleDoesNotServe() {
        DiscoverySettings roles = new DiscoverySettings(true, Map.of(), null, 80, "sglang.ai/bootstrap-port",
                SETTINGS.relistInterval(), SETTINGS.watchSilence(), SETTINGS.drainGrace(), null,
                new DiscoverySettings.Roles(Map.of("role", "prefill"), Map.of("role", "decode")));

        assertThat(PodSnapshot.of(pod("10.1.2.3", true, 0), roles).status()).isEqualTo(PodSnapshot.Status.NO_ROLE);
        assertThat(roles.watched()).as("the labels both selectors share").isEmpty();
    }
}
