package dev.homing.gateway.config;

import dev.homing.core.policy.affinity.AffinitySettings;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;

import dev.homing.gateway.resilience.AdmissionQueue;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.RetryPolicy;
import dev.homing.gateway.security.WorkerHostAllowList;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Every setting of a running gateway, immutable, with the reference gateway's defaults but for the routing policy
 * ({@link #DEFAULTS}). The command line, the YAML file and programmatic starts all end here; {@link #validate()} runs
 * once before start.
 *
 * @param host                        {@code --host}: address the data plane listens on (all interfaces, like the reference)
 * @param port                        {@code --port}: data-plane port; 0 picks a free port (tests, demo)
 * @param tlsCertPath                 {@code --tls-cert-path}: PEM certificate chain of the data-plane listener; null:
 *                                    plain HTTP (given with {@code tlsKeyPath} or not at all)
 * @param tlsKeyPath                  {@code --tls-key-path}: PEM private key of that certificate
 * @param clientHeaderTimeoutSecs     {@code --client-header-timeout-secs}: (Homing) a request head must be complete
 *                                    this long after the connection opened or its first byte arrived, else 408
 * @param clientBodyTimeoutSecs       {@code --client-body-timeout-secs}: (Homing) longest pause between body bytes
 *                                    while the gateway reads a body, else 408
 * @param clientKeepaliveTimeoutSecs  {@code --client-keepalive-timeout-secs}: (Homing) an idle keep-alive client
 *                                    connection is closed after this
 * @param workerUrls                  {@code --worker-urls}: workers registered in the background at start
 * @param policy                      {@code --policy}: routing policy, one instance per model; Homing's
 *                                    load_aware_affinity by default (the reference: cache_aware)
 * @param cacheThreshold              {@code --cache-threshold}: match ratio above which cache_aware follows the match
 * @param balanceAbsThreshold         {@code --balance-abs-threshold}: in-flight gap that may count as imbalance
 * @param balanceRelThreshold         {@code --balance-rel-threshold}: max/min in-flight ratio that may count as imbalance
 * @param evictionIntervalSecs        {@code --eviction-interval}: how often policies run their housekeeping (tree eviction)
 * @param maxTreeSize                 {@code --max-tree-size}: characters a model's prefix tree may hold
 * @param maxIdleSecs                 {@code --max-idle-secs}: manual policy forgets a routing key idle this long
 * @param assignmentMode              {@code --assignment-mode}: how manual places a new routing key
 * @param prefixTokenCount            {@code --prefix-token-count}: prefix_hash hashes this much of the prefix
 * @param prefixHashLoadFactor        {@code --prefix-hash-load-factor}: prefix_hash skips workers loaded beyond this
 * @param bucketAdjustIntervalSecs    {@code --bucket-adjust-interval-secs}: bucket boundary refresh period
 * @param affinity                    {@code --affinity-*}: (Homing) load_aware_affinity's settings
 * @param workerStartupTimeoutSecs    {@code --worker-startup-timeout-secs}: give up registering a worker after this
 * @param workerStartupCheckIntervalSecs {@code --worker-startup-check-interval}: longest wait between registration
 *                                    probes; also the {@code /get_load} poll period for power_of_two
 * @param logDir                      {@code --log-dir}: also write logs to a file in this directory (null: stdout only)
 * @param logLevel                    {@code --log-level}: root log level
 * @param logJson                     {@code --log-json}: one JSON object per log line, for log shippers
 * @param prometheusHost              {@code --prometheus-host}: address of the metrics listener
 * @param prometheusPort              {@code --prometheus-port}: metrics port; 0 picks a free port, -1 disables it
 * @param prometheusDurationBuckets   {@code --prometheus-duration-buckets}: upper bounds of duration histograms, seconds
 * @param requestIdHeaders            {@code --request-id-headers}: the first present names the request
 * @param requestTimeoutSecs          {@code --request-timeout-secs}: whole-request limit, streams included
 * @param shutdownGracePeriodSecs     {@code --shutdown-grace-period-secs}: how long streams may drain at shutdown
 * @param maxPayloadSize              {@code --max-payload-size}: larger request bodies get 413
 * @param corsAllowedOrigins          {@code --cors-allowed-origins}: empty allows any origin
 * @param healthFailureThreshold      {@code --health-failure-threshold}: failed probes in a row before unhealthy
 * @param healthSuccessThreshold      {@code --health-success-threshold}: good probes in a row before healthy again
 * @param healthCheckTimeoutSecs      {@code --health-check-timeout-secs}: one probe's time limit
 * @param healthCheckIntervalSecs     {@code --health-check-interval-secs}: probe period
 * @param healthCheckEndpoint         {@code --health-check-endpoint}: path probed on each worker
 * @param disableHealthCheck          {@code --disable-health-check}: workers are always healthy
 * @param apiKey                      {@code --api-key}: clients must send it as Bearer; also sent to CLI workers
 * @param backend                     {@code --backend}: engine kind behind the workers (OpenAI-compatible HTTP)
 * @param retryMaxRetries             {@code --retry-max-retries}: attempts per request in all, the first included
 * @param retryInitialBackoffMs       {@code --retry-initial-backoff-ms}: wait before the first retry
 * @param retryMaxBackoffMs           {@code --retry-max-backoff-ms}: cap on one backoff
 * @param retryBackoffMultiplier      {@code --retry-backoff-multiplier}: growth of the backoff per retry
 * @param retryJitterFactor           {@code --retry-jitter-factor}: +- share of each backoff drawn at random, so retries spread
 * @param disableRetries              {@code --disable-retries}: one attempt per request
 * @param cbFailureThreshold          {@code --cb-failure-threshold}: consecutive worker failures that open its circuit
 * @param cbSuccessThreshold          {@code --cb-success-threshold}: consecutive half-open successes that close it (and its probe budget)
 * @param cbTimeoutDurationSecs       {@code --cb-timeout-duration-secs}: how long an open circuit refuses traffic
 * @param disableCircuitBreaker       {@code --disable-circuit-breaker}: circuits never open
 * @param maxConcurrentRequests       {@code --max-concurrent-requests}: inference requests admitted at once; -1: no admission control
 * @param queueSize                   {@code --queue-size}: requests that may wait for admission; beyond it 429
 * @param queueTimeoutSecs            {@code --queue-timeout-secs}: longest wait for admission; beyond it 408
 * @param rateLimitTokensPerSecond    {@code --rate-limit-tokens-per-second}: admissions per second; 0: no rate limit
 * @param adminApiKey                 {@code --admin-api-key}: (Homing) Bearer key of the admin routes; null: --api-key
 * @param allowUnauthenticatedAdmin   {@code --allow-unauthenticated-admin}: (Homing) admin routes open when no key is set
 * @param workerHostAllowList         {@code --worker-host-allow-list}: (Homing) hosts {@code POST /workers} may add;
 *                                    empty: the hosts of {@code workerUrls} plus loopback
 */
public record GatewayConfig(
        String host,
        int port,
        String tlsCertPath,
        String tlsKeyPath,
        long clientHeaderTimeoutSecs,
        long clientBodyTimeoutSecs,
        long clientKeepaliveTimeoutSecs,
        List<String> workerUrls,
        String policy,
        double cacheThreshold,
        int balanceAbsThreshold,
        double balanceRelThreshold,
        long evictionIntervalSecs,
        long maxTreeSize,
        long maxIdleSecs,
        String assignmentMode,
        int prefixTokenCount,
        double prefixHashLoadFactor,
        int bucketAdjustIntervalSecs,
        AffinitySettings affinity,
        long workerStartupTimeoutSecs,
        long workerStartupCheckIntervalSecs,
        String logDir,
        String logLevel,
        boolean logJson,
        String prometheusHost,
        int prometheusPort,
        List<Double> prometheusDurationBuckets,
        List<String> requestIdHeaders,
        long requestTimeoutSecs,
        long shutdownGracePeriodSecs,
        long maxPayloadSize,
        List<String> corsAllowedOrigins,
        int healthFailureThreshold,
        int healthSuccessThreshold,
        long healthCheckTimeoutSecs,
        long healthCheckIntervalSecs,
        String healthCheckEndpoint,
        boolean disableHealthCheck,
        String apiKey,
        String backend,
        int retryMaxRetries,
        long retryInitialBackoffMs,
        long retryMaxBackoffMs,
        double retryBackoffMultiplier,
        double retryJitterFactor,
        boolean disableRetries,
        int cbFailureThreshold,
        int cbSuccessThreshold,
        long cbTimeoutDurationSecs,
        boolean disableCircuitBreaker,
        int maxConcurrentRequests,
        int queueSize,
        long queueTimeoutSecs,
        double rateLimitTokensPerSecond,
        String adminApiKey,
        boolean allowUnauthenticatedAdmin,
        List<String> workerHostAllowList) {

    /** The reference's duration buckets: 1 ms to 240 s. */
    public static final List<Double> DEFAULT_DURATION_BUCKETS = List.of(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
            0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0);

    /** Engine kinds whose HTTP API the data plane speaks. */
    public static final List<String> BACKENDS = List.of("sglang", "vllm");

    public static final List<String> LOG_LEVELS = List.of("trace", "debug", "info", "warn", "error");

    /**
     * The reference gateway's command-line defaults (Rust CLI where Rust and Python differ), but for the policy:
     * load_aware_affinity, which measured better than the reference's cache_aware (docs/DIFFERENCES.md).
     */
    public static final GatewayConfig DEFAULTS = new GatewayConfig(
            "0.0.0.0", 30000,
            null, null, 10, 30, 75,
            List.of(), LoadAwareAffinityPolicy.NAME,
            0.3, 64, 1.5, 120, 67_108_864L, 14_400, "random", 256, 1.25, 5,
            AffinitySettings.DEFAULTS,
            1800, 30,
            null, "info", false,
            "0.0.0.0", 29000, DEFAULT_DURATION_BUCKETS,
            List.of("x-request-id", "x-correlation-id", "x-trace-id", "request-id"), 1800, 180, 536_870_912L,
            List.of(),
            3, 2, 5, 60, "/health", false,
            null, "sglang",
            5, 50, 30_000, 1.5, 0.2, false,
            10, 3, 60, false,
            -1, 100, 60, 0,
            null, false,
            List.of());

    public GatewayConfig {
        workerUrls = List.copyOf(workerUrls);
        prometheusDurationBuckets = List.copyOf(prometheusDurationBuckets);
        requestIdHeaders = requestIdHeaders.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
        corsAllowedOrigins = List.copyOf(corsAllowedOrigins);
        workerHostAllowList = List.copyOf(workerHostAllowList);
    }

    /**
     * Checks every setting and the settings' relations.
     *
     * @throws IllegalArgumentException listing every problem found, each naming its flag
     */
    public GatewayConfig validate() {
        List<String> problems = new ArrayList<>();
        check(problems, port >= 0 && port <= 65535, "--port must be 0..65535, got " + port);
        problems.addAll(TlsFiles.problems(tlsCertPath, tlsKeyPath));
        check(problems, clientHeaderTimeoutSecs > 0,
                "--client-header-timeout-secs must be > 0, got " + clientHeaderTimeoutSecs);
        check(problems, clientBodyTimeoutSecs > 0,
                "--client-body-timeout-secs must be > 0, got " + clientBodyTimeoutSecs);
        check(problems, clientKeepaliveTimeoutSecs > 0,
                "--client-keepalive-timeout-secs must be > 0, got " + clientKeepaliveTimeoutSecs);
        check(problems, prometheusPort >= -1 && prometheusPort <= 65535,
                "--prometheus-port must be -1..65535, got " + prometheusPort);
        for (String url : workerUrls) {
            String problem = WorkerUrls.problem(url);
            if (problem != null) {
                problems.add("--worker-urls: " + problem);
            }
        }
        check(problems, PolicyFactory.NAMES.contains(policy),
                "--policy must be one of " + String.join(", ", PolicyFactory.NAMES) + ", got '" + policy + "'");
        check(problems, cacheThreshold >= 0 && cacheThreshold <= 1,
                "--cache-threshold must be between 0 and 1, got " + cacheThreshold);
        check(problems, balanceAbsThreshold >= 0, "--balance-abs-threshold must be >= 0, got " + balanceAbsThreshold);
        check(problems, balanceRelThreshold >= 1, "--balance-rel-threshold must be >= 1, got " + balanceRelThreshold);
        check(problems, evictionIntervalSecs > 0, "--eviction-interval must be > 0, got " + evictionIntervalSecs);
        check(problems, maxTreeSize > 0, "--max-tree-size must be > 0, got " + maxTreeSize);
        check(problems, maxIdleSecs > 0, "--max-idle-secs must be > 0, got " + maxIdleSecs);
        check(problems, List.of("random", "min_load", "min_group").contains(assignmentMode),
                "--assignment-mode must be one of random, min_load, min_group, got '" + assignmentMode + "'");
        check(problems, prefixTokenCount > 0, "--prefix-token-count must be > 0, got " + prefixTokenCount);
        check(problems, prefixHashLoadFactor >= 1,
                "--prefix-hash-load-factor must be >= 1, got " + prefixHashLoadFactor);
        check(problems, bucketAdjustIntervalSecs > 0,
                "--bucket-adjust-interval-secs must be > 0, got " + bucketAdjustIntervalSecs);
        check(problems, workerStartupTimeoutSecs > 0,
                "--worker-startup-timeout-secs must be > 0, got " + workerStartupTimeoutSecs);
        check(problems, workerStartupCheckIntervalSecs > 0,
                "--worker-startup-check-interval must be > 0, got " + workerStartupCheckIntervalSecs);
        check(problems, LOG_LEVELS.contains(logLevel.toLowerCase(Locale.ROOT)),
                "--log-level must be one of " + String.join(", ", LOG_LEVELS) + ", got '" + logLevel + "'");
        check(problems, !prometheusDurationBuckets.isEmpty(), "--prometheus-duration-buckets must not be empty");
        for (int i = 1; i < prometheusDurationBuckets.size(); i++) {
            if (prometheusDurationBuckets.get(i) <= prometheusDurationBuckets.get(i - 1)) {
                problems.add("--prometheus-duration-buckets must be strictly increasing");
                break;
            }
        }
        check(problems, !requestIdHeaders.isEmpty(), "--request-id-headers must not be empty");
        check(problems, requestTimeoutSecs > 0, "--request-timeout-secs must be > 0, got " + requestTimeoutSecs);
        check(problems, shutdownGracePeriodSecs >= 0,
                "--shutdown-grace-period-secs must be >= 0, got " + shutdownGracePeriodSecs);
        check(problems, maxPayloadSize > 0, "--max-payload-size must be > 0, got " + maxPayloadSize);
        check(problems, healthFailureThreshold > 0,
                "--health-failure-threshold must be > 0, got " + healthFailureThreshold);
        check(problems, healthSuccessThreshold > 0,
                "--health-success-threshold must be > 0, got " + healthSuccessThreshold);
        check(problems, healthCheckTimeoutSecs > 0,
                "--health-check-timeout-secs must be > 0, got " + healthCheckTimeoutSecs);
        check(problems, healthCheckIntervalSecs > 0,
                "--health-check-interval-secs must be > 0, got " + healthCheckIntervalSecs);
        check(problems, healthCheckEndpoint.startsWith("/"),
                "--health-check-endpoint must start with '/', got '" + healthCheckEndpoint + "'");
        check(problems, BACKENDS.contains(backend),
                "--backend must be one of " + String.join(", ", BACKENDS) + " (others are not supported yet), got '"
                        + backend + "'");
        check(problems, apiKey == null || !apiKey.isBlank(), "--api-key must not be blank");
        check(problems, adminApiKey == null || !adminApiKey.isBlank(), "--admin-api-key must not be blank");
        checkBuilds(problems, this::retryPolicy);
        checkBuilds(problems, this::circuitBreakerSettings);
        checkBuilds(problems, this::admissionSettings);
        try {
            WorkerHostAllowList.of(workerHostAllowList, host -> new InetAddress[0]);
        } catch (IllegalArgumentException e) {
            problems.add("--worker-host-allow-list: " + e.getMessage());
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        return this;
    }

    /** Records the message of a settings record that refuses its values (each names its flag). */
    private static void checkBuilds(List<String> problems, Runnable build) {
        try {
            build.run();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
    }

    /** Whether the data-plane listener speaks TLS. */
    public boolean tls() {
        return tlsCertPath != null;
    }

    /** The retry settings; one attempt when retries are disabled. */
    public RetryPolicy retryPolicy() {
        RetryPolicy policy = new RetryPolicy(retryMaxRetries, retryInitialBackoffMs, retryBackoffMultiplier,
                retryMaxBackoffMs, retryJitterFactor);
        return disableRetries ? policy.disabled() : policy;
    }

    /** The settings shared by every worker's circuit breaker. */
    public CircuitBreaker.Settings circuitBreakerSettings() {
        return new CircuitBreaker.Settings(cbFailureThreshold, cbSuccessThreshold, cbTimeoutDurationSecs,
                TimeUnit.SECONDS, disableCircuitBreaker);
    }

    /** The admission-control settings; off when {@code maxConcurrentRequests} is -1. */
    public AdmissionQueue.Settings admissionSettings() {
        return new AdmissionQueue.Settings(maxConcurrentRequests, queueSize, TimeUnit.SECONDS.toNanos(queueTimeoutSecs),
                rateLimitTokensPerSecond);
    }

    private static void check(List<String> problems, boolean ok, String message) {
        if (!ok) {
            problems.add(message);
        }
    }

    /** The policy settings handed to the routing core. */
    public PolicyConfig policyConfig(long seed) {
        return new PolicyConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, maxTreeSize, maxIdleSecs,
                PolicyConfig.AssignmentMode.parse(assignmentMode), prefixTokenCount, prefixHashLoadFactor,
                bucketAdjustIntervalSecs, seed, affinity);
    }

    /** A builder starting from the defaults; for tests and programmatic starts. */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Mutable copy of a configuration, for tests and programmatic starts. Not thread-safe. */
    public static final class Builder {
        private String host;
        private int port;
        private String tlsCertPath;
        private String tlsKeyPath;
        private long clientHeaderTimeoutSecs;
        private long clientBodyTimeoutSecs;
        private long clientKeepaliveTimeoutSecs;
        private List<String> workerUrls;
        private String policy;
        private double cacheThreshold;
        private int balanceAbsThreshold;
        private double balanceRelThreshold;
        private long evictionIntervalSecs;
        private long maxTreeSize;
        private long maxIdleSecs;
        private String assignmentMode;
        private int prefixTokenCount;
        private double prefixHashLoadFactor;
        private int bucketAdjustIntervalSecs;
        private AffinitySettings affinity;
        private long workerStartupTimeoutSecs;
        private long workerStartupCheckIntervalSecs;
        private String logDir;
        private String logLevel;
        private boolean logJson;
        private String prometheusHost;
        private int prometheusPort;
        private List<Double> prometheusDurationBuckets;
        private List<String> requestIdHeaders;
        private long requestTimeoutSecs;
        private long shutdownGracePeriodSecs;
        private long maxPayloadSize;
        private List<String> corsAllowedOrigins;
        private int healthFailureThreshold;
        private int healthSuccessThreshold;
        private long healthCheckTimeoutSecs;
        private long healthCheckIntervalSecs;
        private String healthCheckEndpoint;
        private boolean disableHealthCheck;
        private String apiKey;
        private String backend;
        private int retryMaxRetries;
        private long retryInitialBackoffMs;
        private long retryMaxBackoffMs;
        private double retryBackoffMultiplier;
        private double retryJitterFactor;
        private boolean disableRetries;
        private int cbFailureThreshold;
        private int cbSuccessThreshold;
        private long cbTimeoutDurationSecs;
        private boolean disableCircuitBreaker;
        private int maxConcurrentRequests;
        private int queueSize;
        private long queueTimeoutSecs;
        private double rateLimitTokensPerSecond;
        private String adminApiKey;
        private boolean allowUnauthenticatedAdmin;
        private List<String> workerHostAllowList;

        private Builder(GatewayConfig c) {
            host = c.host; port = c.port; workerUrls = c.workerUrls; policy = c.policy;
            tlsCertPath = c.tlsCertPath; tlsKeyPath = c.tlsKeyPath;
            clientHeaderTimeoutSecs = c.clientHeaderTimeoutSecs; clientBodyTimeoutSecs = c.clientBodyTimeoutSecs;
            clientKeepaliveTimeoutSecs = c.clientKeepaliveTimeoutSecs;
            cacheThreshold = c.cacheThreshold; balanceAbsThreshold = c.balanceAbsThreshold;
            balanceRelThreshold = c.balanceRelThreshold; evictionIntervalSecs = c.evictionIntervalSecs;
            maxTreeSize = c.maxTreeSize; maxIdleSecs = c.maxIdleSecs; assignmentMode = c.assignmentMode;
            prefixTokenCount = c.prefixTokenCount; prefixHashLoadFactor = c.prefixHashLoadFactor;
            bucketAdjustIntervalSecs = c.bucketAdjustIntervalSecs;
            affinity = c.affinity;
            workerStartupTimeoutSecs = c.workerStartupTimeoutSecs;
            workerStartupCheckIntervalSecs = c.workerStartupCheckIntervalSecs;
            logDir = c.logDir; logLevel = c.logLevel; logJson = c.logJson;
            prometheusHost = c.prometheusHost; prometheusPort = c.prometheusPort;
            prometheusDurationBuckets = c.prometheusDurationBuckets; requestIdHeaders = c.requestIdHeaders;
            requestTimeoutSecs = c.requestTimeoutSecs; shutdownGracePeriodSecs = c.shutdownGracePeriodSecs;
            maxPayloadSize = c.maxPayloadSize; corsAllowedOrigins = c.corsAllowedOrigins;
            healthFailureThreshold = c.healthFailureThreshold; healthSuccessThreshold = c.healthSuccessThreshold;
            healthCheckTimeoutSecs = c.healthCheckTimeoutSecs; healthCheckIntervalSecs = c.healthCheckIntervalSecs;
            healthCheckEndpoint = c.healthCheckEndpoint; disableHealthCheck = c.disableHealthCheck;
            apiKey = c.apiKey; backend = c.backend;
            retryMaxRetries = c.retryMaxRetries;
            retryInitialBackoffMs = c.retryInitialBackoffMs;
            retryMaxBackoffMs = c.retryMaxBackoffMs;
            retryBackoffMultiplier = c.retryBackoffMultiplier;
            retryJitterFactor = c.retryJitterFactor;
            disableRetries = c.disableRetries;
            cbFailureThreshold = c.cbFailureThreshold;
            cbSuccessThreshold = c.cbSuccessThreshold;
            cbTimeoutDurationSecs = c.cbTimeoutDurationSecs;
            disableCircuitBreaker = c.disableCircuitBreaker;
            maxConcurrentRequests = c.maxConcurrentRequests;
            queueSize = c.queueSize;
            queueTimeoutSecs = c.queueTimeoutSecs;
            rateLimitTokensPerSecond = c.rateLimitTokensPerSecond;
            adminApiKey = c.adminApiKey;
            allowUnauthenticatedAdmin = c.allowUnauthenticatedAdmin;
            workerHostAllowList = c.workerHostAllowList;
        }

        public Builder host(String v) { host = v; return this; }
        public Builder port(int v) { port = v; return this; }
        public Builder tlsCertPath(String v) { tlsCertPath = v; return this; }
        public Builder tlsKeyPath(String v) { tlsKeyPath = v; return this; }
        public Builder clientHeaderTimeoutSecs(long v) { clientHeaderTimeoutSecs = v; return this; }
        public Builder clientBodyTimeoutSecs(long v) { clientBodyTimeoutSecs = v; return this; }
        public Builder clientKeepaliveTimeoutSecs(long v) { clientKeepaliveTimeoutSecs = v; return this; }
        public Builder workerUrls(List<String> v) { workerUrls = v; return this; }
        public Builder policy(String v) { policy = v; return this; }
        public Builder cacheThreshold(double v) { cacheThreshold = v; return this; }
        public Builder balanceAbsThreshold(int v) { balanceAbsThreshold = v; return this; }
        public Builder balanceRelThreshold(double v) { balanceRelThreshold = v; return this; }
        public Builder evictionIntervalSecs(long v) { evictionIntervalSecs = v; return this; }
        public Builder maxTreeSize(long v) { maxTreeSize = v; return this; }
        public Builder maxIdleSecs(long v) { maxIdleSecs = v; return this; }
        public Builder assignmentMode(String v) { assignmentMode = v; return this; }
        public Builder prefixTokenCount(int v) { prefixTokenCount = v; return this; }
        public Builder prefixHashLoadFactor(double v) { prefixHashLoadFactor = v; return this; }
        public Builder bucketAdjustIntervalSecs(int v) { bucketAdjustIntervalSecs = v; return this; }
        public Builder affinity(AffinitySettings v) { affinity = v; return this; }
        public Builder workerStartupTimeoutSecs(long v) { workerStartupTimeoutSecs = v; return this; }
        public Builder workerStartupCheckIntervalSecs(long v) { workerStartupCheckIntervalSecs = v; return this; }
        public Builder logDir(String v) { logDir = v; return this; }
        public Builder logLevel(String v) { logLevel = v; return this; }
        public Builder logJson(boolean v) { logJson = v; return this; }
        public Builder prometheusHost(String v) { prometheusHost = v; return this; }
        public Builder prometheusPort(int v) { prometheusPort = v; return this; }
        public Builder prometheusDurationBuckets(List<Double> v) { prometheusDurationBuckets = v; return this; }
        public Builder requestIdHeaders(List<String> v) { requestIdHeaders = v; return this; }
        public Builder requestTimeoutSecs(long v) { requestTimeoutSecs = v; return this; }
        public Builder shutdownGracePeriodSecs(long v) { shutdownGracePeriodSecs = v; return this; }
        public Builder maxPayloadSize(long v) { maxPayloadSize = v; return this; }
        public Builder corsAllowedOrigins(List<String> v) { corsAllowedOrigins = v; return this; }
        public Builder healthFailureThreshold(int v) { healthFailureThreshold = v; return this; }
        public Builder healthSuccessThreshold(int v) { healthSuccessThreshold = v; return this; }
        public Builder healthCheckTimeoutSecs(long v) { healthCheckTimeoutSecs = v; return this; }
        public Builder healthCheckIntervalSecs(long v) { healthCheckIntervalSecs = v; return this; }
        public Builder healthCheckEndpoint(String v) { healthCheckEndpoint = v; return this; }
        public Builder disableHealthCheck(boolean v) { disableHealthCheck = v; return this; }
        public Builder apiKey(String v) { apiKey = v; return this; }
        public Builder backend(String v) { backend = v; return this; }
        public Builder retryMaxRetries(int v) { retryMaxRetries = v; return this; }
        public Builder retryInitialBackoffMs(long v) { retryInitialBackoffMs = v; return this; }
        public Builder retryMaxBackoffMs(long v) { retryMaxBackoffMs = v; return this; }
        public Builder retryBackoffMultiplier(double v) { retryBackoffMultiplier = v; return this; }
        public Builder retryJitterFactor(double v) { retryJitterFactor = v; return this; }
        public Builder disableRetries(boolean v) { disableRetries = v; return this; }
        public Builder cbFailureThreshold(int v) { cbFailureThreshold = v; return this; }
        public Builder cbSuccessThreshold(int v) { cbSuccessThreshold = v; return this; }
        public Builder cbTimeoutDurationSecs(long v) { cbTimeoutDurationSecs = v; return this; }
        public Builder disableCircuitBreaker(boolean v) { disableCircuitBreaker = v; return this; }
        public Builder maxConcurrentRequests(int v) { maxConcurrentRequests = v; return this; }
        public Builder queueSize(int v) { queueSize = v; return this; }
        public Builder queueTimeoutSecs(long v) { queueTimeoutSecs = v; return this; }
        public Builder rateLimitTokensPerSecond(double v) { rateLimitTokensPerSecond = v; return this; }
        public Builder adminApiKey(String v) { adminApiKey = v; return this; }
        public Builder allowUnauthenticatedAdmin(boolean v) { allowUnauthenticatedAdmin = v; return this; }
        public Builder workerHostAllowList(List<String> v) { workerHostAllowList = v; return this; }

        public GatewayConfig build() {
            return new GatewayConfig(host, port,
                    tlsCertPath, tlsKeyPath, clientHeaderTimeoutSecs, clientBodyTimeoutSecs, clientKeepaliveTimeoutSecs,
                    workerUrls, policy, cacheThreshold, balanceAbsThreshold,
                    balanceRelThreshold, evictionIntervalSecs, maxTreeSize, maxIdleSecs, assignmentMode,
                    prefixTokenCount, prefixHashLoadFactor, bucketAdjustIntervalSecs,
                    Objects.requireNonNull(affinity), workerStartupTimeoutSecs,
                    workerStartupCheckIntervalSecs, logDir, Objects.requireNonNull(logLevel), logJson,
                    prometheusHost, prometheusPort, prometheusDurationBuckets, requestIdHeaders, requestTimeoutSecs,
                    shutdownGracePeriodSecs, maxPayloadSize, corsAllowedOrigins, healthFailureThreshold,
                    healthSuccessThreshold, healthCheckTimeoutSecs, healthCheckIntervalSecs, healthCheckEndpoint,
                    disableHealthCheck, apiKey, backend, retryMaxRetries, retryInitialBackoffMs, retryMaxBackoffMs, retryBackoffMultiplier, retryJitterFactor, disableRetries, cbFailureThreshold, cbSuccessThreshold, cbTimeoutDurationSecs, disableCircuitBreaker, maxConcurrentRequests, queueSize, queueTimeoutSecs, rateLimitTokensPerSecond, adminApiKey, allowUnauthenticatedAdmin,
                    workerHostAllowList);
        }
    }
}
