package dev.homing.gateway.config;

import dev.homing.config.Config;
import dev.homing.config.PolicySettings;
import dev.homing.config.Scope;
import dev.homing.config.Setting;
import dev.homing.config.Settings;
import dev.homing.config.WorkerUrls;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.gateway.http.BodyMemory;
import dev.homing.gateway.http.IoTransports;
import dev.homing.gateway.resilience.AdmissionQueue;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.RetryPolicy;
import dev.homing.gateway.security.RouteAccess;
import dev.homing.gateway.security.WorkerHostAllowList;
import dev.homing.gateway.workers.WorkerRole;
import dev.homing.gateway.workers.WorkerSpec;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A running gateway's settings: the gateway's values of the settings table ({@link Settings}), checked, and the
 * settings records of the gateway's parts made from them. The command line, the YAML file and programmatic starts
 * all end here; nothing is declared here, every setting is the table's.
 *
 * <p>Invariant: a {@code GatewayConfig} holds only values that passed every check (the table's, the worker host
 * allow list's, whose syntax the gateway's own parser knows, and an {@code --io-transport} named explicitly, which
 * must start on this machine), so the records made from it never refuse them.
 */
public record GatewayConfig(Config values) {

    /** The table's defaults for the gateway. */
    public static final GatewayConfig DEFAULTS = new GatewayConfig(Config.defaults(Scope.GATEWAY));

    /**
     * Checks {@code values} (the gateway's settings).
     *
     * @param values the gateway's values, to change with {@link Config#with} and check again
     * @throws IllegalArgumentException listing every problem, one a line, each naming its flag
     */
    public GatewayConfig {
        if (values.scope() != Scope.GATEWAY) {
            throw new IllegalArgumentException("not a gateway configuration: " + values.scope());
        }
        List<String> problems = new ArrayList<>(values.problems());
        try {
            WorkerHostAllowList.of(values.get(Settings.WORKER_HOST_ALLOW_LIST), host -> new InetAddress[0]);
        } catch (IllegalArgumentException e) {
            problems.add(Settings.WORKER_HOST_ALLOW_LIST.flag() + ": " + e.getMessage());
        }
        int given = values.get(Settings.WORKER_URLS).size() + values.get(Settings.DECODE).size()
                + WorkerUrls.prefills(values.get(Settings.PREFILL)).size();
        if (problems.isEmpty() && given > values.get(Settings.MAX_WORKERS)) {
            problems.add(Settings.MAX_WORKERS.flag() + ": " + given + " workers given on the command line, more "
                    + "than the " + values.get(Settings.MAX_WORKERS) + " allowed; raise the limit");
        }
        String transportProblem = IoTransports.problem(values.get(Settings.IO_TRANSPORT));
        if (transportProblem != null) {
            problems.add(transportProblem);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
    }

    public <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /** Whether the data-plane listener speaks TLS. */
    public boolean tls() {
        return get(Settings.TLS_CERT_PATH) != null;
    }

    /** The retry settings; one attempt when retries are disabled. */
    public RetryPolicy retryPolicy() {
        RetryPolicy policy = new RetryPolicy(get(Settings.RETRY_MAX_RETRIES), get(Settings.RETRY_INITIAL_BACKOFF_MS),
                get(Settings.RETRY_BACKOFF_MULTIPLIER), get(Settings.RETRY_MAX_BACKOFF_MS),
                get(Settings.RETRY_JITTER_FACTOR), get(Settings.RETRY_MAX_DELIVERED));
        return get(Settings.DISABLE_RETRIES) ? policy.disabled() : policy;
    }

    /** Who may call which kind of route, on both listeners: the API keys. */
    public RouteAccess routeAccess() {
        return new RouteAccess(get(Settings.API_KEY), get(Settings.ADMIN_API_KEY),
                get(Settings.ALLOW_UNAUTHENTICATED_ADMIN));
    }

    /** The settings shared by every worker's circuit breaker. */
    public CircuitBreaker.Settings circuitBreakerSettings() {
        return new CircuitBreaker.Settings(get(Settings.CB_FAILURE_THRESHOLD), get(Settings.CB_SUCCESS_THRESHOLD),
                get(Settings.CB_TIMEOUT_DURATION_SECS), TimeUnit.SECONDS, get(Settings.DISABLE_CIRCUIT_BREAKER));
    }

    /** The admission-control settings; off when {@code --max-concurrent-requests} is -1. */
    public AdmissionQueue.Settings admissionSettings() {
        Integer rate = get(Settings.RATE_LIMIT_TOKENS_PER_SECOND);
        return new AdmissionQueue.Settings(get(Settings.MAX_CONCURRENT_REQUESTS), get(Settings.QUEUE_SIZE),
                TimeUnit.SECONDS.toNanos(get(Settings.QUEUE_TIMEOUT_SECS)), rate == null ? 0 : rate);
    }

    /** Bytes of request bodies the gateway holds at once: {@code --max-body-memory}, else a quarter of the heap. */
    public long bodyMemoryBytes() {
        Long set = get(Settings.MAX_BODY_MEMORY);
        return set != null ? set : BodyMemory.defaultLimit();
    }

    /** Whether requests go to prefill/decode pairs ({@code --pd-disaggregation}). */
    public boolean prefillDecode() {
        return get(Settings.PD_DISAGGREGATION);
    }

    /**
     * The policy each role's pools are routed by: {@code --policy} for regular workers, {@code --prefill-policy}
     * (else {@code --policy}) for prefill workers, {@code --decode-policy} for decode workers.
     */
    public Map<WorkerRole, String> policyNames() {
        String policy = get(Settings.POLICY);
        String prefill = get(Settings.PREFILL_POLICY);
        return Map.of(WorkerRole.REGULAR, policy, WorkerRole.PREFILL, prefill != null ? prefill : policy,
                WorkerRole.DECODE, get(Settings.DECODE_POLICY));
    }

    /** The workers given on the command line: {@code --worker-urls}, {@code --prefill} and {@code --decode}. */
    public List<WorkerSpec> workers() {
        String key = get(Settings.API_KEY);
        List<WorkerSpec> workers = new ArrayList<>();
        for (String url : get(Settings.WORKER_URLS)) {
            workers.add(WorkerSpec.of(WorkerUrls.normalize(url), key));
        }
        for (WorkerUrls.Prefill prefill : WorkerUrls.prefills(get(Settings.PREFILL))) {
            workers.add(WorkerSpec.of(prefill.url(), key, WorkerRole.PREFILL, prefill.bootstrapPort()));
        }
        for (String url : get(Settings.DECODE)) {
            workers.add(WorkerSpec.of(WorkerUrls.normalize(url), key, WorkerRole.DECODE, null));
        }
        return List.copyOf(workers);
    }

    /** The policy settings handed to the routing core. */
    public PolicyConfig policyConfig(long seed) {
        return PolicySettings.of(values, seed);
    }
}
