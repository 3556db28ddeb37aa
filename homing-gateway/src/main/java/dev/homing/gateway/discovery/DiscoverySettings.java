package dev.homing.gateway.discovery;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.workers.WorkerRole;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the gateway finds workers among Kubernetes pods, made from the settings table's values ({@link #of(Config)}:
 * every flag, default and check is the table's). The first five are the reference's flags with its defaults; the
 * rest are Homing's, for a discovery that never goes stale ({@link PodDiscovery}).
 *
 * @param enabled                 {@code --service-discovery}: discover workers from pods (off)
 * @param selector                {@code --selector k=v ...}: a pod is a candidate when it carries every one of these
 *                                labels; none matches every pod of the namespace (as the reference)
 * @param namespace               {@code --service-discovery-namespace}: the namespace watched, or null for every
 *                                namespace (the reference's default; the shipped manifests name their own, so that
 *                                the Role stays namespaced)
 * @param port                    {@code --service-discovery-port}: the worker's port on every pod (80)
 * @param bootstrapPortAnnotation {@code --bootstrap-port-annotation}: the pod annotation that holds a prefill
 *                                worker's bootstrap port ({@code sglang.ai/bootstrap-port}); without it the worker's
 *                                {@code /get_server_info} says
 * @param relistInterval          {@code --service-discovery-relist-interval-secs}: how often the whole pod list is
 *                                read and the workers corrected to it, whatever the watch said (60 s: a missed
 *                                event costs at most a minute, for one small list a minute per replica)
 * @param watchSilence            {@code --service-discovery-watch-silence-secs}: a watch that delivered neither an
 *                                event nor a bookmark this long is restarted (300 s: the API server sends a bookmark
 *                                about once a minute to a watch that asks for them, as this one does)
 * @param drainGrace              {@code --service-discovery-drain-grace-secs}: how long a going pod's requests in
 *                                flight may run before its worker is removed (180 s, as
 *                                {@code --shutdown-grace-period-secs}: a stream gets the same time whichever side
 *                                goes away)
 * @param apiServer               {@code --service-discovery-api-server}: null for the API server of the pod's
 *                                service account (else the current kubeconfig context); a URL for that server,
 *                                with no credentials sent (such as {@code kubectl proxy})
 * @param roles                   with {@code --pd-disaggregation}, {@code --prefill-selector} and
 *                                {@code --decode-selector}: which pods are prefill and which decode workers; null
 *                                for regular workers (picked by {@code selector})
 */
public record DiscoverySettings(boolean enabled, Map<String, String> selector, String namespace, int port,
                                String bootstrapPortAnnotation, Duration relistInterval, Duration watchSilence,
                                Duration drainGrace, String apiServer, Roles roles) {

    /**
     * Prefill/decode mode's pod selectors: a pod carrying every label of one (and not every label of the other) is
     * a worker of that role. The Kubernetes API selects by labels a pod must all carry, never by one set or another,
     * so the watch asks for the labels both selectors share and the pods are told apart here.
     */
    public record Roles(Map<String, String> prefill, Map<String, String> decode) {

        public Roles {
            prefill = Map.copyOf(prefill);
            decode = Map.copyOf(decode);
        }

        /** The labels of both selectors: what the watch asks the API server for. */
        Map<String, String> shared() {
            Map<String, String> shared = new LinkedHashMap<>(prefill);
            shared.entrySet().removeIf(label -> !label.getValue().equals(decode.get(label.getKey())));
            return shared;
        }

        /** The role of a pod carrying {@code labels}, or null when it carries the labels of neither or of both. */
        WorkerRole of(Map<String, String> labels) {
            boolean isPrefill = carries(labels, prefill);
            boolean isDecode = carries(labels, decode);
            return isPrefill == isDecode ? null : isPrefill ? WorkerRole.PREFILL : WorkerRole.DECODE;
        }

        private static boolean carries(Map<String, String> labels, Map<String, String> selector) {
            return labels != null && labels.entrySet().containsAll(selector.entrySet());
        }
    }

    /** Regular workers only. */
    public DiscoverySettings(boolean enabled, Map<String, String> selector, String namespace, int port,
                             String bootstrapPortAnnotation, Duration relistInterval, Duration watchSilence,
                             Duration drainGrace, String apiServer) {
        this(enabled, selector, namespace, port, bootstrapPortAnnotation, relistInterval, watchSilence, drainGrace,
                apiServer, null);
    }

    /** The table's defaults: discovery off. */
    public static final DiscoverySettings DEFAULTS = of(Config.defaults(dev.homing.config.Scope.GATEWAY));

    public DiscoverySettings {
        selector = Map.copyOf(selector);
    }

    /** The discovery settings of a gateway's checked values. */
    public static DiscoverySettings of(Config gateway) {
        return new DiscoverySettings(gateway.get(Settings.SERVICE_DISCOVERY),
                parseSelector(gateway.get(Settings.SELECTOR)), gateway.get(Settings.SERVICE_DISCOVERY_NAMESPACE),
                gateway.get(Settings.SERVICE_DISCOVERY_PORT), gateway.get(Settings.BOOTSTRAP_PORT_ANNOTATION),
                Duration.ofSeconds(gateway.get(Settings.SERVICE_DISCOVERY_RELIST_INTERVAL_SECS)),
                Duration.ofSeconds(gateway.get(Settings.SERVICE_DISCOVERY_WATCH_SILENCE_SECS)),
                Duration.ofSeconds(gateway.get(Settings.SERVICE_DISCOVERY_DRAIN_GRACE_SECS)),
                gateway.get(Settings.SERVICE_DISCOVERY_API_SERVER),
                gateway.get(Settings.PD_DISAGGREGATION)
                        ? new Roles(parseSelector(gateway.get(Settings.PREFILL_SELECTOR)),
                                parseSelector(gateway.get(Settings.DECODE_SELECTOR)))
                        : null);
    }

    /** The labels the watch asks for: {@code --selector}, or in prefill/decode mode those both role selectors share. */
    public Map<String, String> watched() {
        return roles == null ? selector : roles.shared();
    }

    /** Discovery on for the pods carrying {@code selector} in {@code namespace}, the rest at the defaults. */
    public static DiscoverySettings of(Map<String, String> selector, String namespace) {
        return new DiscoverySettings(true, selector, namespace, DEFAULTS.port, DEFAULTS.bootstrapPortAnnotation,
                DEFAULTS.relistInterval, DEFAULTS.watchSilence, DEFAULTS.drainGrace, null);
    }

    /**
     * The labels of {@code --selector k=v ...}, in order (the table has checked each item).
     */
    public static Map<String, String> parseSelector(List<String> items) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String item : items) {
            int eq = item.indexOf('=');
            labels.put(item.substring(0, eq), item.substring(eq + 1));
        }
        return labels;
    }
}
