package dev.homing.gateway.testing;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabric8's mock Kubernetes API server in CRUD mode (it stores what it is sent and serves lists and watches of it),
 * over plain HTTP on a loopback ephemeral port, with a client of its own for the test to change pods through, and
 * pod builders.
 */
public final class KubernetesApi implements AutoCloseable {

    /** The mock logs every request at INFO through java.util.logging; held here so the level sticks. */
    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

    private final KubernetesMockServer server;
    private final NamespacedKubernetesClient client;

    /** The test's own changes to pods: fabric8's default of 10 s ran out on a machine loaded by parallel builds. */
    private static final int CLIENT_REQUEST_TIMEOUT_MS = 60_000;

    private KubernetesApi(KubernetesMockServer server) {
        this.server = server;
        this.client = server.createClient(builder -> builder.editOrNewConfig()
                .withRequestTimeout(CLIENT_REQUEST_TIMEOUT_MS).endConfig());
    }

    public static KubernetesApi start() {
        MOCK_LOG.setLevel(Level.WARNING);
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), new HashMap<>(), new KubernetesMixedDispatcher(new HashMap<>()), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        return new KubernetesApi(server);
    }

    /** The API server's base URL, for the gateway's discovery. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    public int port() {
        return server.getPort();
    }

    /** A client straight to the API server (never through a test's relay). */
    public NamespacedKubernetesClient client() {
        return client;
    }

    /** Stores {@code pod} as it is, status included. */
    public Pod create(Pod pod) {
        return client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
    }

    public void delete(String namespace, String name) {
        client.pods().inNamespace(namespace).withName(name).delete();
    }

    /** Sets the Ready condition of a running pod. */
    public void ready(String namespace, String name, boolean ready) {
        Pod pod = client.pods().inNamespace(namespace).withName(name).get();
        pod.getStatus().setConditions(List.of(new PodConditionBuilder().withType("Ready")
                .withStatus(ready ? "True" : "False").build()));
        client.pods().inNamespace(namespace).resource(pod).updateStatus();
    }

    /**
     * Deletes a pod that a finalizer holds back: the API server only gives it a deletion timestamp, as it does to
     * every pod at the start of a graceful deletion.
     */
    public void deleteHeldBack(String namespace, String name) {
        client.pods().inNamespace(namespace).withName(name).edit(pod -> new PodBuilder(pod).editMetadata()
                .addToFinalizers("homing.dev/test-hold").endMetadata().build());
        delete(namespace, name);
    }

    /**
     * A pod in {@code namespace} with {@code labels}, Running and Ready (or not) at {@code ip} (null for none),
     * whose one container declares {@code containerPort} (0 for none).
     */
    public static Pod pod(String namespace, String name, Map<String, String> labels, String ip, boolean ready,
                          int containerPort) {
        ContainerBuilder container = new ContainerBuilder().withName("engine").withImage("lmsysorg/sglang");
        if (containerPort > 0) {
            container.addNewPort().withContainerPort(containerPort).endPort();
        }
        return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).withLabels(labels)
                .endMetadata()
                .withNewSpec().withContainers(container.build()).endSpec()
                .withNewStatus().withPhase("Running").withPodIP(ip)
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
                        .build())
                .endStatus().build();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
