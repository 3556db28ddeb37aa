package dev.homing.gateway.cli;

import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.ConfigFile;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.logging.LogSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code homing launch}: starts the gateway. Every flag of the reference gateway is accepted under its name with its
 * default, grouped as the reference groups them. Flags of features Homing does not have are rejected at start-up
 * with a message naming them (unless given their default value, which asks for nothing); none is silently ignored.
 * {@code --config FILE} reads the same flags from YAML; the command line wins over the file.
 */
@Command(name = "launch", aliases = "start", mixinStandardHelpOptions = true, sortOptions = false,
        showDefaultValues = true, usageHelpWidth = 120,
        description = "Start the Homing gateway in front of SGLang/vLLM workers.")
public final class LaunchCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(LaunchCommand.class);

    /** Flags of features Homing has not built; given with a non-default value they stop the start. */
    static final Set<String> UNSUPPORTED = Set.of(
            "--dp-aware", "--enable-igw",
            "--pd-disaggregation", "--prefill", "--decode", "--prefill-policy", "--decode-policy", "--mini-lb",
            "--service-discovery", "--selector", "--service-discovery-port", "--service-discovery-namespace",
            "--prefill-selector", "--decode-selector", "--bootstrap-port-annotation",
            "--model-path", "--tokenizer-path", "--chat-template", "--tokenizer-cache-enable-l0",
            "--tokenizer-cache-l0-max-entries", "--tokenizer-cache-enable-l1", "--tokenizer-cache-l1-max-memory",
            "--reasoning-parser", "--tool-call-parser", "--mcp-config-path",
            "--history-backend", "--enable-wasm",
            "--oracle-wallet-path", "--oracle-tns-alias", "--oracle-connect-descriptor", "--oracle-username",
            "--oracle-password", "--oracle-pool-min", "--oracle-pool-max", "--oracle-pool-timeout-secs",
            "--postgres-db-url", "--postgres-pool-max-size", "--redis-url", "--redis-pool-max-size",
            "--redis-retention-days",
            "--client-cert-path", "--client-key-path", "--ca-cert-paths",
            "--enable-trace", "--otlp-traces-endpoint",
            "--jwt-issuer", "--jwt-audience", "--jwt-jwks-uri", "--jwt-role-claim", "--jwt-role-mapping",
            "--control-plane-api-keys",
            "--enable-mesh", "--mesh-server-name", "--mesh-host", "--mesh-port", "--mesh-peer-urls");

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", order = 0,
            description = "YAML file with the same settings (keys are flag names without dashes, snake or kebab "
                    + "case); the command line wins over it.")
    Path configFile;

    @ArgGroup(validate = false, heading = "%nServer%n", order = 1)
    ServerFlags server = new ServerFlags();

    @ArgGroup(validate = false, heading = "%nWorkers%n", order = 2)
    WorkerFlags workers = new WorkerFlags();

    @ArgGroup(validate = false, heading = "%nRouting policy%n", order = 3)
    PolicyFlags policy = new PolicyFlags();

    @ArgGroup(validate = false, heading = "%nload_aware_affinity (Homing)%n", order = 3)
    AffinityFlags affinity = new AffinityFlags();

    @ArgGroup(validate = false, heading = "%nPrefill/decode disaggregation (not supported yet)%n", order = 4)
    PdFlags pd = new PdFlags();

    @ArgGroup(validate = false, heading = "%nKubernetes service discovery (not supported yet)%n", order = 5)
    DiscoveryFlags discovery = new DiscoveryFlags();

    @ArgGroup(validate = false, heading = "%nLogging%n", order = 6)
    LoggingFlags logging = new LoggingFlags();

    @ArgGroup(validate = false, heading = "%nMetrics%n", order = 7)
    MetricsFlags metrics = new MetricsFlags();

    @ArgGroup(validate = false, heading = "%nRequests%n", order = 8)
    RequestFlags requests = new RequestFlags();

    @ArgGroup(validate = false, heading = "%nAdmission control and rate limiting%n", order = 9)
    RateLimitFlags rateLimit = new RateLimitFlags();

    @ArgGroup(validate = false, heading = "%nRetries%n", order = 10)
    RetryFlags retry = new RetryFlags();

    @ArgGroup(validate = false, heading = "%nCircuit breaker%n", order = 11)
    CircuitBreakerFlags circuitBreaker = new CircuitBreakerFlags();

    @ArgGroup(validate = false, heading = "%nHealth checks%n", order = 12)
    HealthFlags health = new HealthFlags();

    @ArgGroup(validate = false, heading = "%nTokenizer, gRPC mode (not supported yet)%n", order = 13)
    TokenizerFlags tokenizer = new TokenizerFlags();

    @ArgGroup(validate = false, heading = "%nParsers (not supported yet)%n", order = 14)
    ParserFlags parsers = new ParserFlags();

    @ArgGroup(validate = false, heading = "%nBackend%n", order = 15)
    BackendFlags backend = new BackendFlags();

    @ArgGroup(validate = false, heading = "%nHistory storage (not supported yet)%n", order = 16)
    StorageFlags storage = new StorageFlags();

    @ArgGroup(validate = false, heading = "%nTLS%n", order = 17)
    TlsFlags tls = new TlsFlags();

    @ArgGroup(validate = false, heading = "%nTracing (not supported yet)%n", order = 18)
    TracingFlags tracing = new TracingFlags();

    @ArgGroup(validate = false, heading = "%nAuthentication%n", order = 19)
    AuthFlags auth = new AuthFlags();

    @ArgGroup(validate = false, heading = "%nHA mesh (not supported yet)%n", order = 20)
    MeshFlags mesh = new MeshFlags();

    static final class ServerFlags {
        @Option(names = "--host", description = "Address to listen on.")
        String host = GatewayConfig.DEFAULTS.host();
        @Option(names = "--port", description = "Port to listen on.")
        int port = GatewayConfig.DEFAULTS.port();
        @Option(names = "--client-header-timeout-secs",
                description = "A request head must arrive whole within this of the connection or its first byte, "
                        + "else 408 (Homing).")
        long clientHeaderTimeoutSecs = GatewayConfig.DEFAULTS.clientHeaderTimeoutSecs();
        @Option(names = "--client-body-timeout-secs",
                description = "Longest pause between request body bytes while the gateway reads, else 408 (Homing).")
        long clientBodyTimeoutSecs = GatewayConfig.DEFAULTS.clientBodyTimeoutSecs();
        @Option(names = "--client-keepalive-timeout-secs",
                description = "An idle keep-alive client connection is closed after this (Homing).")
        long clientKeepaliveTimeoutSecs = GatewayConfig.DEFAULTS.clientKeepaliveTimeoutSecs();
    }

    static final class WorkerFlags {
        @Option(names = "--worker-urls", arity = "0..*", split = ",", paramLabel = "URL",
                description = "Worker base URLs (http://host:port), registered in the background at start.")
        List<String> workerUrls = new ArrayList<>();
    }

    static final class PolicyFlags {
        @Option(names = "--policy", description = "Routing policy: ${COMPLETION-CANDIDATES}. The default is "
                + "Homing's; cache_aware routes as the reference does.",
                completionCandidates = PolicyNames.class)
        String policy = GatewayConfig.DEFAULTS.policy();
        @Option(names = "--cache-threshold", description = "cache_aware follows a prefix match above this ratio; "
                + "no other policy reads it.")
        double cacheThreshold = GatewayConfig.DEFAULTS.cacheThreshold();
        @Option(names = "--balance-abs-threshold", description = "Imbalance needs max - min in-flight above this...")
        int balanceAbsThreshold = GatewayConfig.DEFAULTS.balanceAbsThreshold();
        @Option(names = "--balance-rel-threshold", description = "...and max above min times this.")
        double balanceRelThreshold = GatewayConfig.DEFAULTS.balanceRelThreshold();
        @Option(names = {"--eviction-interval", "--eviction-interval-secs"},
                description = "Seconds between prefix-tree evictions.")
        long evictionInterval = GatewayConfig.DEFAULTS.evictionIntervalSecs();
        @Option(names = "--max-tree-size", description = "Characters a model's prefix tree may hold.")
        long maxTreeSize = GatewayConfig.DEFAULTS.maxTreeSize();
        @Option(names = "--max-idle-secs", description = "manual: forget a routing key idle this long.")
        long maxIdleSecs = GatewayConfig.DEFAULTS.maxIdleSecs();
        @Option(names = "--assignment-mode", description = "manual: random, min_load or min_group.")
        String assignmentMode = GatewayConfig.DEFAULTS.assignmentMode();
        @Option(names = "--prefix-token-count", description = "prefix_hash: prefix length hashed.")
        int prefixTokenCount = GatewayConfig.DEFAULTS.prefixTokenCount();
        @Option(names = "--prefix-hash-load-factor", description = "prefix_hash: skip workers loaded beyond this.")
        double prefixHashLoadFactor = GatewayConfig.DEFAULTS.prefixHashLoadFactor();
        @Option(names = "--bucket-adjust-interval-secs", description = "bucket: boundary refresh period.")
        int bucketAdjustIntervalSecs = GatewayConfig.DEFAULTS.bucketAdjustIntervalSecs();
        @Option(names = "--dp-aware", description = "Data-parallel-aware routing (not supported yet).")
        boolean dpAware;
        @Option(names = "--enable-igw", description = "Inference-gateway mode (not needed: Homing is multi-model).")
        boolean enableIgw;
    }

    static final class PdFlags {
        @Option(names = "--pd-disaggregation", description = "Prefill/decode mode.")
        boolean pdDisaggregation;
        @Option(names = "--prefill", arity = "1..2", paramLabel = "URL [BOOTSTRAP_PORT]",
                description = "A prefill worker (repeatable).")
        List<String> prefill;
        @Option(names = "--decode", paramLabel = "URL", description = "A decode worker (repeatable).")
        List<String> decode;
        @Option(names = "--prefill-policy", description = "Policy for prefill workers (default: --policy).")
        String prefillPolicy;
        @Option(names = "--decode-policy", description = "Policy for decode workers (default: --policy).")
        String decodePolicy;
        @Option(names = "--worker-startup-timeout-secs", description = "Give up registering a worker after this.")
        long workerStartupTimeoutSecs = GatewayConfig.DEFAULTS.workerStartupTimeoutSecs();
        @Option(names = "--worker-startup-check-interval",
                description = "Longest wait between registration probes; also the /get_load poll period.")
        long workerStartupCheckInterval = GatewayConfig.DEFAULTS.workerStartupCheckIntervalSecs();
        @Option(names = "--mini-lb", description = "Python mini load balancer for PD.")
        boolean miniLb;
    }

    static final class DiscoveryFlags {
        @Option(names = "--service-discovery", description = "Discover workers from Kubernetes pods.")
        boolean serviceDiscovery;
        @Option(names = "--selector", arity = "1..*", paramLabel = "k=v", description = "Pod label selector.")
        List<String> selector;
        @Option(names = "--service-discovery-port", description = "Worker port on discovered pods.")
        int serviceDiscoveryPort = 80;
        @Option(names = "--service-discovery-namespace", description = "Namespace to watch (default: all).")
        String serviceDiscoveryNamespace;
        @Option(names = "--prefill-selector", arity = "1..*", paramLabel = "k=v", description = "Prefill pods.")
        List<String> prefillSelector;
        @Option(names = "--decode-selector", arity = "1..*", paramLabel = "k=v", description = "Decode pods.")
        List<String> decodeSelector;
        @Option(names = "--bootstrap-port-annotation", description = "Pod annotation holding the bootstrap port.")
        String bootstrapPortAnnotation = "sglang.ai/bootstrap-port";
    }

    static final class LoggingFlags {
        @Option(names = "--log-dir", description = "Also write logs to homing.log in this directory.")
        String logDir;
        @Option(names = "--log-level", description = "trace, debug, info, warn or error.")
        String logLevel = GatewayConfig.DEFAULTS.logLevel();
        @Option(names = "--log-json", description = "Write one JSON object per log line (Homing).")
        boolean logJson;
    }

    static final class MetricsFlags {
        @Option(names = "--prometheus-host", description = "Address of the metrics listener.")
        String prometheusHost = GatewayConfig.DEFAULTS.prometheusHost();
        @Option(names = "--prometheus-port", description = "Metrics port (-1: no metrics listener).")
        int prometheusPort = GatewayConfig.DEFAULTS.prometheusPort();
        @Option(names = "--prometheus-duration-buckets", arity = "1..*", split = ",", paramLabel = "SECONDS",
                description = "Upper bounds of duration histograms (default 0.001 ... 240).")
        List<Double> prometheusDurationBuckets;
    }

    static final class RequestFlags {
        @Option(names = "--request-id-headers", arity = "1..*", split = ",", paramLabel = "HEADER",
                description = "Headers that name a request, first present wins "
                        + "(default x-request-id x-correlation-id x-trace-id request-id).")
        List<String> requestIdHeaders;
        @Option(names = "--request-timeout-secs", description = "Whole-request time limit, streams included.")
        long requestTimeoutSecs = GatewayConfig.DEFAULTS.requestTimeoutSecs();
        @Option(names = "--shutdown-grace-period-secs", description = "How long requests may finish at shutdown.")
        long shutdownGracePeriodSecs = GatewayConfig.DEFAULTS.shutdownGracePeriodSecs();
        @Option(names = "--max-payload-size", description = "Largest request body in bytes; larger gets 413.")
        long maxPayloadSize = GatewayConfig.DEFAULTS.maxPayloadSize();
        @Option(names = "--cors-allowed-origins", arity = "0..*", split = ",", paramLabel = "ORIGIN",
                description = "Allowed CORS origins (default: any).")
        List<String> corsAllowedOrigins = new ArrayList<>();
    }

    static final class RateLimitFlags {
        @Option(names = "--max-concurrent-requests",
                description = "Inference requests admitted at once, a strict cap (-1: off).")
        int maxConcurrentRequests = GatewayConfig.DEFAULTS.maxConcurrentRequests();
        @Option(names = "--queue-size", description = "Requests waiting for admission, in order; beyond it 429.")
        int queueSize = GatewayConfig.DEFAULTS.queueSize();
        @Option(names = "--queue-timeout-secs", description = "Longest wait for admission; beyond it 408.")
        long queueTimeoutSecs = GatewayConfig.DEFAULTS.queueTimeoutSecs();
        @Option(names = "--rate-limit-tokens-per-second",
                description = "Admissions per second on top of the cap (default: no rate limit).")
        Integer rateLimitTokensPerSecond;
    }

    static final class RetryFlags {
        @Option(names = "--retry-max-retries", description = "Attempts per request in all, the first included.")
        int retryMaxRetries = GatewayConfig.DEFAULTS.retryMaxRetries();
        @Option(names = "--retry-initial-backoff-ms", description = "First backoff.")
        long retryInitialBackoffMs = GatewayConfig.DEFAULTS.retryInitialBackoffMs();
        @Option(names = "--retry-max-backoff-ms", description = "Longest backoff.")
        long retryMaxBackoffMs = GatewayConfig.DEFAULTS.retryMaxBackoffMs();
        @Option(names = "--retry-backoff-multiplier", description = "Backoff growth.")
        double retryBackoffMultiplier = GatewayConfig.DEFAULTS.retryBackoffMultiplier();
        @Option(names = "--retry-jitter-factor", description = "Backoff jitter.")
        double retryJitterFactor = GatewayConfig.DEFAULTS.retryJitterFactor();
        @Option(names = "--disable-retries", description = "One attempt per request.")
        boolean disableRetries;
    }

    static final class CircuitBreakerFlags {
        @Option(names = "--cb-failure-threshold", description = "Failures in a row that open the circuit.")
        int cbFailureThreshold = GatewayConfig.DEFAULTS.cbFailureThreshold();
        @Option(names = "--cb-success-threshold", description = "Successes in a row that close it.")
        int cbSuccessThreshold = GatewayConfig.DEFAULTS.cbSuccessThreshold();
        @Option(names = "--cb-timeout-duration-secs", description = "How long it stays open.")
        long cbTimeoutDurationSecs = GatewayConfig.DEFAULTS.cbTimeoutDurationSecs();
        @Option(names = "--cb-window-duration-secs", description = "Accepted and unused, as by the reference.")
        long cbWindowDurationSecs = 120;
        @Option(names = "--disable-circuit-breaker", description = "Circuits never open.")
        boolean disableCircuitBreaker;
    }

    static final class HealthFlags {
        @Option(names = "--health-failure-threshold", description = "Failed probes in a row before unhealthy.")
        int healthFailureThreshold = GatewayConfig.DEFAULTS.healthFailureThreshold();
        @Option(names = "--health-success-threshold", description = "Good probes in a row before healthy again.")
        int healthSuccessThreshold = GatewayConfig.DEFAULTS.healthSuccessThreshold();
        @Option(names = "--health-check-timeout-secs", description = "One probe's time limit.")
        long healthCheckTimeoutSecs = GatewayConfig.DEFAULTS.healthCheckTimeoutSecs();
        @Option(names = "--health-check-interval-secs", description = "Probe period.")
        long healthCheckIntervalSecs = GatewayConfig.DEFAULTS.healthCheckIntervalSecs();
        @Option(names = "--health-check-endpoint", description = "Path probed on each worker.")
        String healthCheckEndpoint = GatewayConfig.DEFAULTS.healthCheckEndpoint();
        @Option(names = "--disable-health-check", description = "Treat every worker as healthy.")
        boolean disableHealthCheck;
    }

    static final class TokenizerFlags {
        @Option(names = "--model-path", description = "Model for the tokenizer.")
        String modelPath;
        @Option(names = "--tokenizer-path", description = "Tokenizer files.")
        String tokenizerPath;
        @Option(names = "--chat-template", description = "Chat template file.")
        String chatTemplate;
        @Option(names = "--tokenizer-cache-enable-l0", description = "Exact-match tokenizer cache.")
        boolean tokenizerCacheEnableL0;
        @Option(names = "--tokenizer-cache-l0-max-entries", description = "Its size.")
        int tokenizerCacheL0MaxEntries = 10_000;
        @Option(names = "--tokenizer-cache-enable-l1", description = "Prefix tokenizer cache.")
        boolean tokenizerCacheEnableL1;
        @Option(names = "--tokenizer-cache-l1-max-memory", description = "Its memory, bytes.")
        long tokenizerCacheL1MaxMemory = 52_428_800L;
    }

    static final class ParserFlags {
        @Option(names = "--reasoning-parser", description = "Reasoning-content parser.")
        String reasoningParser;
        @Option(names = "--tool-call-parser", description = "Tool-call parser.")
        String toolCallParser;
        @Option(names = "--mcp-config-path", description = "MCP servers.")
        String mcpConfigPath;
    }

    static final class BackendFlags {
        @Option(names = {"--backend", "--runtime"}, description = "Engine behind the workers: sglang or vllm.")
        String backend = GatewayConfig.DEFAULTS.backend();
        @Option(names = "--history-backend", description = "Responses/Conversations storage.")
        String historyBackend = "memory";
        @Option(names = "--enable-wasm", description = "WASM middleware.")
        boolean enableWasm;
    }

    static final class StorageFlags {
        @Option(names = "--oracle-wallet-path") String oracleWalletPath;
        @Option(names = "--oracle-tns-alias") String oracleTnsAlias;
        @Option(names = "--oracle-connect-descriptor") String oracleConnectDescriptor;
        @Option(names = "--oracle-username") String oracleUsername;
        @Option(names = "--oracle-password") String oraclePassword;
        @Option(names = "--oracle-pool-min") Integer oraclePoolMin;
        @Option(names = "--oracle-pool-max") Integer oraclePoolMax;
        @Option(names = "--oracle-pool-timeout-secs") Integer oraclePoolTimeoutSecs;
        @Option(names = "--postgres-db-url") String postgresDbUrl;
        @Option(names = "--postgres-pool-max-size") Integer postgresPoolMaxSize;
        @Option(names = "--redis-url") String redisUrl;
        @Option(names = "--redis-pool-max-size") Integer redisPoolMaxSize;
        @Option(names = "--redis-retention-days", description = "-1 keeps forever.")
        int redisRetentionDays = 30;
    }

    static final class TlsFlags {
        @Option(names = "--tls-cert-path", paramLabel = "PEM",
                description = "Serve HTTPS with this certificate chain (with --tls-key-path; metrics stay HTTP).")
        String tlsCertPath;
        @Option(names = "--tls-key-path", paramLabel = "PEM", description = "Private key of --tls-cert-path.")
        String tlsKeyPath;
        @Option(names = "--client-cert-path", description = "mTLS to workers (not supported yet).")
        String clientCertPath;
        @Option(names = "--client-key-path", description = "mTLS to workers (not supported yet).")
        String clientKeyPath;
        @Option(names = "--ca-cert-paths", arity = "1..*", description = "CAs of workers (not supported yet).")
        List<String> caCertPaths;
    }

    static final class TracingFlags {
        @Option(names = "--enable-trace") boolean enableTrace;
        @Option(names = "--otlp-traces-endpoint") String otlpTracesEndpoint = "localhost:4317";
    }

    static final class AuthFlags {
        @Option(names = "--api-key", description = "Clients must send it as Bearer; also sent to --worker-urls.")
        String apiKey;
        @Option(names = "--admin-api-key",
                description = "Bearer key of the admin routes (Homing; default: --api-key).")
        String adminApiKey;
        @Option(names = "--allow-unauthenticated-admin",
                description = "Admin routes open when no key is set (Homing; default: refused with 403).")
        boolean allowUnauthenticatedAdmin;
        @Option(names = "--worker-host-allow-list", arity = "0..*", split = ",", paramLabel = "HOST",
                description = "Hosts POST /workers may add: names, *.suffix, addresses, CIDR blocks, or * for any "
                        + "(Homing; default: the --worker-urls hosts and loopback).")
        List<String> workerHostAllowList = new ArrayList<>();
        @Option(names = "--jwt-issuer", description = "(not supported yet)") String jwtIssuer;
        @Option(names = "--jwt-audience", description = "(not supported yet)") String jwtAudience;
        @Option(names = "--jwt-jwks-uri", description = "(not supported yet)") String jwtJwksUri;
        @Option(names = "--jwt-role-claim", description = "(not supported yet)") String jwtRoleClaim = "roles";
        @Option(names = "--jwt-role-mapping", arity = "1..*", description = "(not supported yet)")
        List<String> jwtRoleMapping;
        @Option(names = "--control-plane-api-keys", arity = "1..*", paramLabel = "id:name:role:key",
                description = "(not supported yet)")
        List<String> controlPlaneApiKeys;
        @Option(names = "--disable-audit-logging", description = "Homing has no audit log; accepted.")
        boolean disableAuditLogging;
    }

    static final class MeshFlags {
        @Option(names = "--enable-mesh") boolean enableMesh;
        @Option(names = "--mesh-server-name") String meshServerName;
        @Option(names = "--mesh-host") String meshHost = "0.0.0.0";
        @Option(names = "--mesh-port") int meshPort = 39527;
        @Option(names = "--mesh-peer-urls", arity = "1..*") List<String> meshPeerUrls;
    }

    /** The policy names for the help text. */
    static final class PolicyNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return dev.homing.core.policy.PolicyFactory.NAMES.iterator();
        }
    }

    @Override
    public Integer call() throws Exception {
        Resolved resolved;
        try {
            resolved = resolve(spec.commandLine());
        } catch (ParameterException e) {
            // The problem in a sentence or two; the whole flag list after it would bury it.
            spec.commandLine().getErr().println("homing: " + e.getMessage().replace("\n", "\nhoming: "));
            spec.commandLine().getErr().println("Run 'homing launch --help' for every flag.");
            return CommandLine.ExitCode.USAGE;
        }
        GatewayConfig config = resolved.config();
        LogSetup.apply(config);
        resolved.warnings().forEach(LOG::warn);
        Gateway gateway;
        try {
            gateway = Gateway.start(config);
        } catch (IllegalStateException e) {
            // A port in use or the like: a sentence for the operator, not a stack trace.
            spec.commandLine().getErr().println("homing: cannot start: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stopped.countDown();
        }, "homing-shutdown"));
        stopped.await();
        return 0;
    }

    /**
     * Parses {@code args} as {@code homing launch} would, YAML file included, and returns the validated
     * configuration without starting anything.
     *
     * @throws ParameterException with a message for the user on any problem
     */
    public static GatewayConfig parse(String... args) {
        return parseWithWarnings(args).config();
    }

    /** As {@link #parse}, with the warnings {@code homing launch} would log at start. */
    static Resolved parseWithWarnings(String... args) {
        CommandLine commandLine = new CommandLine(new LaunchCommand());
        commandLine.parseArgs(args);
        return resolve(commandLine);
    }

    /** A resolved command line: the validated configuration, and warnings to log once logging is set up. */
    record Resolved(GatewayConfig config, List<String> warnings) {
    }

    /**
     * The configuration from a parsed command line: re-parses with the YAML file as the source of defaults when
     * {@code --config} is given (so the command line wins), refuses unsupported flags, validates.
     */
    static Resolved resolve(CommandLine parsed) {
        LaunchCommand command = parsed.getCommand();
        CommandLine effective = parsed;
        Map<String, String> defaults = Map.of();
        if (command.configFile != null) {
            Map<String, Object> file;
            try {
                file = ConfigFile.read(command.configFile);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(parsed, e.getMessage());
            }
            effective = new CommandLine(new LaunchCommand());
            defaults = ConfigFile.toDefaults(file, effective.getCommandSpec());
            Map<String, String> fileDefaults = defaults;
            effective.setDefaultValueProvider(option -> option instanceof OptionSpec o
                    ? fileDefaults.get(o.longestName()) : null);
            effective.parseArgs(parsed.getParseResult().originalArgs().toArray(String[]::new));
        }
        LaunchCommand resolved = effective.getCommand();
        resolved.rejectUnsupported(effective, defaults);
        GatewayConfig config;
        try {
            config = resolved.toConfig().validate();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(effective, e.getMessage());
        }
        return new Resolved(config, DefaultPolicyWarning.forFlags(givenFlags(effective, defaults)).stream().toList());
    }

    /** Longest names of the flags given on the command line or in the config file, whatever their values. */
    private static Set<String> givenFlags(CommandLine parsed, Map<String, String> fileValues) {
        Set<String> given = new HashSet<>(fileValues.keySet());
        for (OptionSpec option : parsed.getParseResult().matchedOptions()) {
            given.add(option.longestName());
        }
        return given;
    }

    /**
     * Refuses unsupported flags given a non-default value on the command line or in the file. The file is checked
     * by its text: picocli applies file defaults to argument groups it did not match on fresh group instances.
     */
    private void rejectUnsupported(CommandLine commandLine, Map<String, String> fileValues) {
        List<String> problems = new ArrayList<>();
        // Reference defaults from a pristine command: picocli re-captures "initial" values after applying a file's
        // defaults. With none, the parsed command's own are pristine (building a second spec costs ~0.1 s of start-up).
        CommandSpec pristine = fileValues.isEmpty() ? commandLine.getCommandSpec()
                : new CommandLine(new LaunchCommand()).getCommandSpec();
        Map<String, Object> initial = new java.util.HashMap<>();
        for (OptionSpec option : pristine.options()) {
            initial.put(option.longestName(), option.initialValue());
        }
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (!UNSUPPORTED.contains(option.longestName())) {
                continue;
            }
            Object value = option.getValue();
            Object reference = initial.get(option.longestName());
            String fromFile = fileValues.get(option.longestName());
            if (!isDefault(value, reference)) {
                problems.add(option.longestName() + " is not supported by Homing yet (" + describe(value) + ")");
            } else if (fromFile != null && !fromFile.equals(String.valueOf(reference))
                    && !(reference == null && fromFile.isEmpty())) {
                problems.add(option.longestName() + " is not supported by Homing yet (set in the config file to "
                        + fromFile + ")");
            }
        }
        if (!problems.isEmpty()) {
            throw new ParameterException(commandLine, String.join("\n", problems));
        }
    }

    /** Compared with the field's initial value, the reference default; a YAML file may have set defaultValue(). */
    private static boolean isDefault(Object value, Object initial) {
        if (value == null || Boolean.FALSE.equals(value)) {
            return true;
        }
        if (value instanceof Collection<?> c) {
            return c.isEmpty();
        }
        return Objects.equals(value, initial);
    }

    private static String describe(Object value) {
        return value instanceof Boolean ? "given" : "given " + value;
    }

    GatewayConfig toConfig() {
        GatewayConfig.Builder b = GatewayConfig.builder()
                .host(server.host).port(server.port)
                .tlsCertPath(tls.tlsCertPath).tlsKeyPath(tls.tlsKeyPath)
                .clientHeaderTimeoutSecs(server.clientHeaderTimeoutSecs)
                .clientBodyTimeoutSecs(server.clientBodyTimeoutSecs)
                .clientKeepaliveTimeoutSecs(server.clientKeepaliveTimeoutSecs)
                .workerUrls(workers.workerUrls == null ? List.of() : workers.workerUrls)
                .policy(policy.policy).cacheThreshold(policy.cacheThreshold)
                .balanceAbsThreshold(policy.balanceAbsThreshold).balanceRelThreshold(policy.balanceRelThreshold)
                .evictionIntervalSecs(policy.evictionInterval).maxTreeSize(policy.maxTreeSize)
                .maxIdleSecs(policy.maxIdleSecs).assignmentMode(policy.assignmentMode)
                .prefixTokenCount(policy.prefixTokenCount).prefixHashLoadFactor(policy.prefixHashLoadFactor)
                .bucketAdjustIntervalSecs(policy.bucketAdjustIntervalSecs)
                .affinity(affinity.settings())
                .workerStartupTimeoutSecs(pd.workerStartupTimeoutSecs)
                .workerStartupCheckIntervalSecs(pd.workerStartupCheckInterval)
                .logDir(logging.logDir).logLevel(logging.logLevel).logJson(logging.logJson)
                .prometheusHost(metrics.prometheusHost).prometheusPort(metrics.prometheusPort)
                .requestTimeoutSecs(requests.requestTimeoutSecs)
                .shutdownGracePeriodSecs(requests.shutdownGracePeriodSecs)
                .maxPayloadSize(requests.maxPayloadSize)
                .corsAllowedOrigins(requests.corsAllowedOrigins == null ? List.of() : requests.corsAllowedOrigins)
                .healthFailureThreshold(health.healthFailureThreshold)
                .healthSuccessThreshold(health.healthSuccessThreshold)
                .healthCheckTimeoutSecs(health.healthCheckTimeoutSecs)
                .healthCheckIntervalSecs(health.healthCheckIntervalSecs)
                .healthCheckEndpoint(health.healthCheckEndpoint).disableHealthCheck(health.disableHealthCheck)
                .apiKey(auth.apiKey).adminApiKey(auth.adminApiKey)
                .allowUnauthenticatedAdmin(auth.allowUnauthenticatedAdmin)
                .workerHostAllowList(auth.workerHostAllowList == null ? List.of() : auth.workerHostAllowList)
                .backend(backend.backend)
                .retryMaxRetries(retry.retryMaxRetries).retryInitialBackoffMs(retry.retryInitialBackoffMs)
                .retryMaxBackoffMs(retry.retryMaxBackoffMs).retryBackoffMultiplier(retry.retryBackoffMultiplier)
                .retryJitterFactor(retry.retryJitterFactor).disableRetries(retry.disableRetries)
                .cbFailureThreshold(circuitBreaker.cbFailureThreshold)
                .cbSuccessThreshold(circuitBreaker.cbSuccessThreshold)
                .cbTimeoutDurationSecs(circuitBreaker.cbTimeoutDurationSecs)
                .disableCircuitBreaker(circuitBreaker.disableCircuitBreaker)
                .maxConcurrentRequests(rateLimit.maxConcurrentRequests).queueSize(rateLimit.queueSize)
                .queueTimeoutSecs(rateLimit.queueTimeoutSecs)
                .rateLimitTokensPerSecond(rateLimit.rateLimitTokensPerSecond == null ? 0
                        : rateLimit.rateLimitTokensPerSecond);
        if (metrics.prometheusDurationBuckets != null && !metrics.prometheusDurationBuckets.isEmpty()) {
            b.prometheusDurationBuckets(metrics.prometheusDurationBuckets);
        }
        if (requests.requestIdHeaders != null && !requests.requestIdHeaders.isEmpty()) {
            b.requestIdHeaders(requests.requestIdHeaders);
        }
        return b.build();
    }
}
