package dev.homing.gateway.discovery;

import dev.homing.gateway.workers.WorkerRole;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one version of a pod says about its worker: the worker's URL when the pod can take traffic, else why not.
 * A pod serves when it is Running and Ready, has an IP and is not being deleted; its worker is
 * {@code http://<pod IP>:<--service-discovery-port>}. A pod whose containers declare ports, none of them that one,
 * runs its server elsewhere and is left alone (a pod that declares none is taken at its word). In prefill/decode
 * mode a pod also needs a role: it carries the labels of one role's selector and not the other's. A pod's role is
 * read when it starts to serve; a label changed while it serves takes effect once it stops and serves again.
 *
 * @param key           {@code namespace/name}, the pod's identity for discovery
 * @param url           the worker's base URL, null unless {@link Status#SERVING}
 * @param bootstrapPort the value of the bootstrap-port annotation, or null
 * @param status        whether the pod serves, or why not
 * @param role          what its worker does ({@link WorkerRole#REGULAR} outside prefill/decode mode)
 */
record PodSnapshot(String key, String url, String bootstrapPort, Status status, WorkerRole role) {

    /** Whether a pod serves, or the first reason it does not. */
    enum Status {
        SERVING,
        /** Has a deletion timestamp: going away. */
        TERMINATING,
        /** Not Running, or Running but not Ready. */
        NOT_READY,
        /** Running and Ready without an IP (seen only from a confused API server, but never guessed around). */
        NO_IP,
        /** Declares container ports, none of them the discovery port. */
        OTHER_PORT,
        /** Prefill/decode mode: carries the labels of neither role's selector, or of both. */
        NO_ROLE;

        /** The label value in metrics and the word in log lines. */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A regular worker's pod. */
    PodSnapshot(String key, String url, String bootstrapPort, Status status) {
        this(key, url, bootstrapPort, status, WorkerRole.REGULAR);
    }

    boolean serving() {
        return status == Status.SERVING;
    }

    static String keyOf(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    static PodSnapshot of(Pod pod, DiscoverySettings settings) {
        String key = keyOf(pod);
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String bootstrapPort = annotations == null ? null : annotations.get(settings.bootstrapPortAnnotation());
        Status status = statusOf(pod, settings.port());
        WorkerRole role = settings.roles() == null ? WorkerRole.REGULAR
                : settings.roles().of(pod.getMetadata().getLabels());
        if (status == Status.SERVING && role == null) {
            status = Status.NO_ROLE;
        }
        String url = null;
        if (status == Status.SERVING) {
            String ip = pod.getStatus().getPodIP();
            url = "http://" + (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + settings.port();
        }
        return new PodSnapshot(key, url, role == WorkerRole.PREFILL ? bootstrapPort : null, status,
                role == null ? WorkerRole.REGULAR : role);
    }

    private static Status statusOf(Pod pod, int port) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
            return Status.TERMINATING;
        }
        PodStatus status = pod.getStatus();
        if (status == null || !"Running".equals(status.getPhase()) || !ready(status.getConditions())) {
            return Status.NOT_READY;
        }
        if (status.getPodIP() == null || status.getPodIP().isEmpty()) {
            return Status.NO_IP;
        }
        return servesOn(pod, port) ? Status.SERVING : Status.OTHER_PORT;
    }

    private static boolean ready(List<PodCondition> conditions) {
        if (conditions == null) {
            return false;
        }
        for (PodCondition condition : conditions) {
            if ("Ready".equals(condition.getType())) {
                return "True".equals(condition.getStatus());
            }
        }
        return false;
    }

    private static boolean servesOn(Pod pod, int port) {
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
            return true;
        }
        boolean declared = false;
        for (Container container : pod.getSpec().getContainers()) {
            for (ContainerPort declaredPort : container.getPorts() == null ? List.<ContainerPort>of()
                    : container.getPorts()) {
                declared = true;
                if (declaredPort.getContainerPort() != null && declaredPort.getContainerPort() == port) {
                    return true;
                }
            }
        }
        return !declared;
    }
}
