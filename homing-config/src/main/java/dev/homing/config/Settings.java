package dev.homing.config;

import static dev.homing.config.Check.above;
import static dev.homing.config.Check.atLeast;
import static dev.homing.config.Check.between;
import static dev.homing.config.Check.each;
import static dev.homing.config.Check.notBlank;
import static dev.homing.config.Check.notEmpty;
import static dev.homing.config.Check.oneOf;
import static dev.homing.config.Check.port;
import static dev.homing.config.Check.positive;
import static dev.homing.config.Check.strictlyIncreasing;
import static dev.homing.config.Check.that;
import static dev.homing.config.Compatibility.different;
import static dev.homing.config.Compatibility.homing;
import static dev.homing.config.Compatibility.same;
import static dev.homing.config.Group.ADMISSION;
import static dev.homing.config.Group.AFFINITY;
import static dev.homing.config.Group.AUTHENTICATION;
import static dev.homing.config.Group.CIRCUIT_BREAKER;
import static dev.homing.config.Group.CONFIGURATION;
import static dev.homing.config.Group.DISCOVERY;
import static dev.homing.config.Group.ENGINE_MODEL;
import static dev.homing.config.Group.ENGINE_ROLES;
import static dev.homing.config.Group.FAULTS;
import static dev.homing.config.Group.FLEET;
import static dev.homing.config.Group.HEALTH;
import static dev.homing.config.Group.LOGGING;
import static dev.homing.config.Group.MESH;
import static dev.homing.config.Group.METRICS;
import static dev.homing.config.Group.PARSERS;
import static dev.homing.config.Group.PD;
import static dev.homing.config.Group.REPORT;
import static dev.homing.config.Group.RETRIES;
import static dev.homing.config.Group.ROUTING_POLICY;
import static dev.homing.config.Group.SERVER;
import static dev.homing.config.Group.SIMULATED_GATEWAY;
import static dev.homing.config.Group.STORAGE;
import static dev.homing.config.Group.TLS;
import static dev.homing.config.Group.TOKENIZER;
import static dev.homing.config.Group.TRACING;
import static dev.homing.config.Scope.GATEWAY;
import static dev.homing.config.Scope.SIMULATE;
import static dev.homing.config.Scope.SIM_ENGINE;
import static dev.homing.config.ValueType.INTEGER;
import static dev.homing.config.ValueType.LONG;
import static dev.homing.config.ValueType.LOWER_CASE_TEXT;
import static dev.homing.config.ValueType.NUMBER;
import static dev.homing.config.ValueType.TEXT;
import static dev.homing.config.ValueType.listOf;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.affinity.AffinitySettings;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.pd.DecodeBalancePolicy;
import dev.homing.sim.http.Faults;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.kvevents.KvEventFault;
import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.TimingModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Every setting of {@code homing launch}, {@code homing sim-engine} and {@code homing simulate}/{@code compare},
 * each declared once, with its default and the reason for it (the model is Armeria's {@code Flags}). The flags,
 * the YAML keys, {@code --help} and docs/COMPATIBILITY.md are made from this table; {@link Config} holds values of
 * it.
 *
 * <p>Defaults: the routing policies' values live in the routing core ({@link PolicyConfig#DEFAULTS},
 * {@link AffinitySettings#DEFAULTS}) and the engine model's in the simulated engine ({@link EngineConfig#DEFAULTS},
 * {@link TimingModel#H100_8B}, {@link Faults#NONE}), so their own tests test the values the commands run; every
 * other default is written here. The gateway's follow the reference gateway (its Rust CLI, v0.3.2) unless the
 * reason says otherwise.
 *
 * <p>A flag of a feature Homing has not built ({@link Compatibility.Status#NOT_YET}) is an entry too, a line in a
 * {@code notYet} block: accepted at its default, refused with any other value. Building the feature is moving its
 * line to a constant with its row, and reading the constant.
 *
 * <p>Invariant: the names of one scope's settings (and their aliases) are distinct; {@code SettingsTableTest}
 * guards it with the rest of the table's rules (a reason and help for each, defaults that pass their own checks).
 */
public final class Settings {

    private static final PolicyConfig POLICY_DEFAULTS = PolicyConfig.DEFAULTS;
    private static final AffinitySettings AFFINITY_DEFAULTS = AffinitySettings.DEFAULTS;
    private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;
    private static final TimingModel TIMING = ENGINE.timing();
    private static final Faults NO_FAULTS = Faults.NONE;
    private static final DisaggregationConfig ROLES = DisaggregationConfig.DEFAULTS;
    private static final String REFERENCE = "the reference's default";
    private static final String AFFINITY_MEASURED = "measured best in the offline simulator (docs/POLICY.md)";
    private static final String SERVING_BENCHMARK = "the generated-shared-prefix shape of SGLang's serving benchmark, "
            + "as homing bench's --gsp-* flags";
    private static final List<String> LOG_LEVELS = List.of("trace", "debug", "info", "warn", "error");
    /** Engine kinds whose HTTP API the data plane speaks. */
    private static final List<String> BACKENDS = List.of("sglang", "vllm");
    /** Transports under the gateway's sockets, "auto" (the first of the others that starts) first. */
    private static final List<String> IO_TRANSPORTS = List.of("auto", "io_uring", "epoll", "nio");

    private static final List<Setting<?>> DECLARED = new ArrayList<>();

    // ---------------------------------------------------------------------------------------------------------------
    // homing launch: the gateway

    public static final Setting<Path> CONFIG = declare(Setting.file("config").label("FILE").commandLineOnly()
            .help("YAML file with the same settings (keys are the flag names without dashes, in snake or kebab case, "
                    + "also dotted or nested: retry.max-retries); the command line wins over it.", "flags alone")
            .gateway(CONFIGURATION, homing("YAML file with the same settings; the command line wins")));

    public static final Setting<String> HOST = declare(Setting.of("host", TEXT, "0.0.0.0")
            .help("Address to listen on.", "all interfaces, as the reference")
            .gateway(SERVER, same()));
    public static final Setting<Integer> PORT = declare(Setting.of("port", INTEGER, 30_000)
            .help("Port to listen on.", "the reference's port; 0 picks a free one (tests, demo)")
            .check(port(0)).gateway(SERVER, same()));
    public static final Setting<Long> CLIENT_HEADER_TIMEOUT_SECS = declare(clientTimeout("client-header-timeout-secs",
            10, "A request head must arrive whole within this of the connection or its first byte, else 408",
            "heads arrive in milliseconds; a head dribbled in (slowloris) frees its connection after 10 s",
            "a request head must arrive whole within this of the connection or of its first byte, else 408 "
                    + "`client_header_timeout` and close (nginx's `client_header_timeout`)"));
    public static final Setting<Long> CLIENT_BODY_TIMEOUT_SECS = declare(clientTimeout("client-body-timeout-secs", 30,
            "Longest pause between request body bytes while the gateway reads, else 408", "long enough for a slow "
                    + "uplink, half of nginx's 60 s to free a stalled connection sooner", "longest pause between "
                    + "request body bytes while the gateway reads the body, else 408 `client_body_timeout` and close; "
                    + "the request never reaches a worker (nginx's `client_body_timeout`)"));
    public static final Setting<Long> CLIENT_KEEPALIVE_TIMEOUT_SECS = declare(clientTimeout(
            "client-keepalive-timeout-secs", 75, "An idle keep-alive client connection is closed after this",
            "nginx's keepalive_timeout: longer than the usual client pool's idle time",
            "an idle keep-alive client connection is closed after this (nginx's `keepalive_timeout`)"));
    public static final Setting<Boolean> DISABLE_H2C = declare(Setting.off("disable-h2c")
            .help("Serve HTTP/1.1 only on a plain-text port: no HTTP/2 by prior knowledge or Upgrade: h2c (Homing).",
                    "on, as before: SDKs that speak h2c keep working, and its streams have the same limits")
            .gateway(SERVER, homing("no HTTP/2 over plain text (prior knowledge or `Upgrade: h2c`); by default h2c "
                    + "is served, each stream a request with its own admission permit, at most 100 streams a "
                    + "connection, with the same head, body and idle timeouts as HTTP/1.1")));

    public static final Setting<String> IO_TRANSPORT = declare(Setting.of("io-transport", TEXT, IO_TRANSPORTS.getFirst())
            .check(oneOf(IO_TRANSPORTS)).label("NAME")
            .help("Socket I/O under the server and the worker client: auto, io_uring, epoll or nio (Homing).",
                    "auto: io_uring where the kernel allows it (0.6 to 0.8x the CPU a proxied request of epoll, "
                    + "docs/BENCHMARKS.md), else epoll, else the JDK's NIO")
            .gateway(SERVER, homing("the socket I/O under the server and the worker client: `auto` takes io_uring "
                    + "where the kernel lets the process set a ring up, else epoll, else the JDK's NIO, and logs why "
                    + "it fell back; a transport named explicitly must start, or the gateway does not")));

    public static final Setting<Integer> BUSY_POLL_US = declare(Setting.of("busy-poll-us", INTEGER, 0)
            .label("MICROS").check(between(0, 1_000_000))
            .help("After I/O, each event loop polls without sleeping for up to this long before it blocks (Homing): "
                    + "a request that finds the gateway idle is read at once instead of after its thread wakes; 0: "
                    + "never.", "off, as HAProxy's busy-polling: the spin costs up to this much CPU per idle gap, "
                    + "throttled time under a CPU quota; best with --io-transport epoll (docs/BENCHMARKS.md)")
            .gateway(SERVER, homing("after each turn that handled I/O, an event loop polls its sockets without "
                    + "sleeping for up to this many microseconds before it blocks, yielding the core on each empty "
                    + "turn; off (0) by default")));

    public static final Setting<Integer> WARMUP_SECS = declare(Setting.of("warmup-secs", INTEGER, 0)
            .label("SECONDS").check(atLeast(0))
            .help("Longest warm-up of the proxy path at start (Homing): once the ports are bound and before the "
                    + "workers register, requests go through a throwaway gateway in this process until the JIT has "
                    + "compiled their way, /readiness answering 503 meanwhile; 0 skips it.", "off: the gateway is "
                    + "ready within seconds of its start; without a warm-up its first thousand requests pay a fraction "
                    + "of a millisecond more each while the JIT compiles (docs/BENCHMARKS.md, \"Startup\")")
            .gateway(SERVER, homing("once the ports are bound and before the workers register (/readiness answers "
                    + "503 meanwhile), short requests of every route go through a throwaway gateway in the same "
                    + "process, in front of two stub workers on loopback, in bursts with pauses that leave the cores "
                    + "to the JIT, until compiling takes under 5% of a second or two thirds of this many seconds have "
                    + "passed; then the same through a second, fresh throwaway gateway for the rest, so that code the "
                    + "first one's close and a new gateway's first requests throw away is compiled again before the "
                    + "first clients come; nothing of it is counted or logged; off (0) by default")));

    public static final Setting<List<String>> WORKER_URLS = declare(Setting.of("worker-urls", listOf(TEXT), List.of())
            .label("URL").arity("0..*").check(each(WorkerUrls::problem))
            .help("Worker base URLs (http://host:port), registered in the background at start.",
                    "none: workers may also come later through POST /workers")
            .gateway(Group.WORKERS, different("same; a refused connection moves the request to another worker "
                    + "(the worker never saw it)")));

    public static final Setting<Integer> MAX_WORKERS = declare(Setting.of("max-workers", INTEGER, 2_048)
            .label("N").check(between(1, 1_000_000))
            .help("Most workers registered at once, pending ones included (Homing): POST /workers past it is "
                    + "refused with 429, more --worker-urls than this is a start-up error.", "a fleet of hundreds "
                    + "of engines, or 256 engines of 8 ranks each with --dp-aware; a pending worker is probed "
                    + "until it answers and costs memory, so a runaway client or script adding workers stops here")
            .gateway(Group.WORKERS, homing("most workers registered at once (pending, active and draining): "
                    + "`POST /workers` past it answers 429 `too_many_workers`, discovery leaves further pods out "
                    + "with a warning, and more workers on the command line than this is a start-up error")));

    public static final Setting<String> POLICY = declare(Setting.of("policy", TEXT, LoadAwareAffinityPolicy.NAME)
            .check(oneOf(PolicyFactory.NAMES))
            .help("Routing policy: " + String.join(", ", PolicyFactory.NAMES) + ". The default is Homing's; "
                    + "cache_aware routes as the reference does.", "measured better than the reference's "
                    + "cache_aware on hit rate and TTFT (docs/DIFFERENCES.md)")
            .gateway(ROUTING_POLICY, different("the default is Homing's load_aware_affinity, which measured "
                    + "better than the reference's default cache_aware ([DIFFERENCES.md](DIFFERENCES.md)); "
                    + "`--policy cache_aware` routes as the reference does. Also accepts consistent_hashing and "
                    + "bucket; an unknown name is an error, not a silent round_robin; prefix_hash works over HTTP "
                    + "(hashes text)")));
    /** {@code homing simulate}'s: the policies to run, one after the other. */
    public static final Setting<List<String>> POLICIES = declare(Setting.of("policy", listOf(TEXT), PolicyFactory.NAMES)
            .label("NAME").arity("1").shown("all of them")
            .check(Check.<String>notEmpty().and(each(Settings::unknownPolicy)))
            .help("Policies to run, comma-separated.", "a comparison of every policy is what the simulator is for")
            .in(ROUTING_POLICY, SIMULATE));
    public static final Setting<Double> CACHE_THRESHOLD = declare(policy(Setting.of("cache-threshold", NUMBER,
                    POLICY_DEFAULTS.cacheThreshold()).check(between(0, 1)),
            "cache_aware follows a prefix match above this ratio; no other policy reads it.",
            different("cache_aware follows a prefix match above this ratio; no other policy reads it. Given (on the "
                    + "command line or in the config file) without `--policy`, it logs a warning at start: the "
                    + "default policy ignores it")));
    public static final Setting<Integer> BALANCE_ABS_THRESHOLD = declare(policy(
            Setting.of("balance-abs-threshold", INTEGER, POLICY_DEFAULTS.balanceAbsThreshold()).check(atLeast(0)),
            "Imbalance needs max - min in-flight above this...", same("Imbalance needs max - min in-flight above "
                    + "this... (`load_aware_affinity` reads both for its overload valve: the chosen worker against "
                    + "the one with the fewest in flight, [POLICY.md](POLICY.md))")));
    public static final Setting<Double> BALANCE_REL_THRESHOLD = declare(policy(Setting.of("balance-rel-threshold",
            NUMBER, POLICY_DEFAULTS.balanceRelThreshold()).check(atLeast(1)), "...and max above min times this.",
            same()));
    public static final Setting<Long> EVICTION_INTERVAL = declare(Setting.of("eviction-interval", LONG, 120L)
            .alias("eviction-interval-secs").check(above(0))
            .help("Seconds between prefix-tree evictions (simulated seconds in the simulator).",
                    "the reference's Rust default for both names; a burst past the cap evicts at once anyway")
            .gateway(ROUTING_POLICY, different("the Rust default for both names (Python used 60 for "
                    + "`--eviction-interval-secs`); plus an immediate eviction when a burst takes the tree 10% "
                    + "above the cap")).alsoIn(SIMULATE));
    public static final Setting<Long> MAX_TREE_SIZE = declare(policy(Setting.of("max-tree-size", LONG,
            POLICY_DEFAULTS.maxTreeSize()).check(above(0)), "Characters a model's prefix tree may hold.",
            different("caps the whole tree of a model (each stored character counted once), not each worker's "
                    + "share; see DIFFERENCES.md")));
    public static final Setting<Long> MAX_IDLE_SECS = declare(policy(Setting.of("max-idle-secs", LONG,
            POLICY_DEFAULTS.maxIdleSecs()).check(above(0)), "manual: forget a routing key idle this long.", same()));
    public static final Setting<String> ASSIGNMENT_MODE = declare(policy(
            Setting.of("assignment-mode", TEXT, POLICY_DEFAULTS.assignmentMode().flag()).check(oneOf(
                    Arrays.stream(PolicyConfig.AssignmentMode.values()).map(PolicyConfig.AssignmentMode::flag)
                            .toList())), "manual: random, min_load or min_group.", same()));
    public static final Setting<Integer> PREFIX_TOKEN_COUNT = declare(policy(Setting.of("prefix-token-count", INTEGER,
            POLICY_DEFAULTS.prefixTokenCount()).check(above(0)), "prefix_hash: prefix length hashed.", same()));
    public static final Setting<Double> PREFIX_HASH_LOAD_FACTOR = declare(policy(
            Setting.of("prefix-hash-load-factor", NUMBER, POLICY_DEFAULTS.prefixHashLoadFactor()).check(atLeast(1)),
            "prefix_hash: skip workers loaded beyond this.", same()));
    public static final Setting<Integer> BUCKET_ADJUST_INTERVAL_SECS = declare(policy(
            Setting.of("bucket-adjust-interval-secs", INTEGER, POLICY_DEFAULTS.bucketAdjustIntervalSecs())
                    .check(above(0)), "bucket: boundary refresh period.", same()));
    public static final Setting<Boolean> DP_AWARE = declare(Setting.off("dp-aware")
            .help("Route to the data-parallel ranks of an engine: a worker URL http://host:port@rank is one rank, "
                    + "sent \"data_parallel_rank\": rank in its body.", "whole engines, as the reference")
            .gateway(ROUTING_POLICY, different("each `http://host:port@rank` is a worker of its own (its own "
                    + "tenant in the prefix tree, in-flight count and circuit breaker); the gateway strips the rank "
                    + "from the URL and adds `\"data_parallel_rank\": rank` to the JSON body without re-serialising "
                    + "it; a body that sets the field itself gets 400. Ranks are given in the URLs: a plain URL is "
                    + "not expanded to its engine's `dp_size` ([PD.md](PD.md))")));

    static {
        notYet(ROUTING_POLICY, Setting.off("enable-igw"), "Inference-gateway mode (not needed: Homing is multi-model).",
                "Homing is always multi-model (one policy and tree per model), so the flag is not needed; rejected "
                        + "when set");
    }

    public static final Setting<Double> AFFINITY_MIN_SAVING = declare(affinity(
            Setting.of("affinity-min-saving", NUMBER, AFFINITY_DEFAULTS.minSaving()).label("SHARE")
                    .check(between(0, 1)),
            "a match counts only beyond what every worker holds, by more than this share of the text",
            AFFINITY_MEASURED + ": 25.9% on Mooncake against 25.4% at the reference's 0.3",
            "a match counts only beyond what every worker holds, by more than this share of the text "
                    + "([POLICY.md](POLICY.md)); `homing simulate` and `homing compare` take every `--affinity-*` "
                    + "flag too"));
    public static final Setting<Double> AFFINITY_LOAD_FACTOR = declare(affinity(
            Setting.of("affinity-load-factor", NUMBER, AFFINITY_DEFAULTS.loadFactor()).label("X").check(atLeast(1)),
            "a worker whose recent prefill work is above X times the mean is passed over, within the move tolerance",
            "the bound of consistent hashing with bounded loads; multi-turn max/mean load 1.20", "a worker whose "
                    + "recent prefill work is above this multiple of the mean is passed over, whatever its match, "
                    + "within `--affinity-move-tolerance`"));
    public static final Setting<Double> AFFINITY_PROMPT_SHARE_SLACK = declare(affinity(
            Setting.of("affinity-prompt-share-slack", NUMBER, AFFINITY_DEFAULTS.promptShareSlack()).label("X")
                    .check(atLeast(0)),
            "the load factor rises by X times the share of an engine's KV cache one prompt fills, so that where "
                    + "engines hold a few prompts each a conversation stays on its engine",
            "multi-turn on engines of under two prompts: 79.9% against 35.7% on the exact view; 1.25 becomes 1.35 "
                    + "for Mooncake on 1M tokens",
            "the load factor rises by this multiple of the share of an engine's KV cache that one prompt fills, "
                    + "from the engines' reported capacity (SGLang's `/get_server_info`) and prompt tokens; where "
                    + "engines hold a few prompts each, moving a turn evicts a live conversation "
                    + "([POLICY.md](POLICY.md)); 0 keeps the factor fixed"));
    public static final Setting<Double> AFFINITY_MOVE_TOLERANCE = declare(affinity(Setting.of("affinity-move-tolerance",
                    NUMBER, AFFINITY_DEFAULTS.moveTolerance()).label("SHARE").check(atLeast(0)),
            "a worker holding a match may pass the load bound by this share of the match's saving before its request "
                    + "is moved", "moving a request costs its saving in prefill; 0 split shared-prefix groups after "
                    + "a burst",
            "...unless it holds a match and is above the bound by less than this share of the match's saving"));
    public static final Setting<Integer> AFFINITY_WINDOW = declare(affinity(Setting.of("affinity-window", INTEGER,
                    AFFINITY_DEFAULTS.windowDecisions()).label("DECISIONS").check(atLeast(1)),
            "how many decisions the recent work remembers",
            AFFINITY_MEASURED + ": 128 lost a point on Mooncake, 512 measured the same", null));
    public static final Setting<Double> AFFINITY_PENDING_WEIGHT = declare(affinity(
            Setting.of("affinity-pending-weight", NUMBER, AFFINITY_DEFAULTS.pendingWeight()).label("W")
                    .check(atLeast(0)),
            "weight of the prefill already queued on a worker against the prefill its cache saves",
            "the queue term buys tail TTFT with hit rate; 0 keeps the hit rate",
            "weight of the prefill queued on a worker against the prefill its cache saves"));
    public static final Setting<Integer> AFFINITY_TRIM_MIN_CHARS = declare(affinity(Setting.of(
            "affinity-trim-min-chars", INTEGER, AFFINITY_DEFAULTS.trimMinChars()).label("CHARS").check(atLeast(0)),
            "a cached-token shortfall up to this is rounding, not eviction", "page rounding and the prompt's last "
                    + "token stay below it", null));
    public static final Setting<Double> AFFINITY_TRIM_SHARE = declare(affinity(
            Setting.of("affinity-trim-share", NUMBER, AFFINITY_DEFAULTS.trimShare()).label("SHARE").check(atLeast(0)),
            "forget a worker's branches when the engine cached less than the prediction by more than this share; 1 "
                    + "never forgets", "never trimming: trimming at 0.1 cost 2 points on Mooncake",
            "forget a worker's branches when the engine cached less than predicted by more than this share; 1 never "
                    + "forgets"));
    public static final Setting<Double> AFFINITY_CAPACITY_CHARS_PER_TOKEN = declare(affinity(Setting.of(
                    "affinity-capacity-chars-per-token", NUMBER, AFFINITY_DEFAULTS.charsPerToken()).label("CHARS")
                    .check(atLeast(0)),
            "keep each worker's share of the tree within its engine's KV capacity at this many characters a token; 0 "
                    + "leaves it unbounded", "off: bounding at 4 changed nothing measurable",
            "bound each worker's share of the tree by its engine's KV capacity at this many characters a token; 0 "
                    + "leaves it unbounded"));
    public static final Setting<Long> AFFINITY_PREFILL_WAIT_MS = declare(affinity(Setting.of("affinity-prefill-wait-ms",
                    LONG, AFFINITY_DEFAULTS.prefillWaitMillis()).label("MS").check(atLeast(0)),
            "a request placed for a prefix another request is still computing on that worker waits for its first "
                    + "token, at most this long; 0 sends at once",
            "no wait ran out at 2 s on the shared-prefix burst, which reached the ideal hit rate",
            "a request whose match relies on a prefix another request is still computing on the same worker waits "
                    + "for that request's first token, at most this long, so the engine does not compute the prefix "
                    + "twice in one prefill step; 0 sends at once"));

    public static final Setting<Boolean> AFFINITY_ONE_OFF_PLACEMENT = declare(affinity(
            Setting.off("affinity-one-off-placement"),
            "a request no worker holds beyond the shared prefix, whose opening a frequency sketch has not seen, goes "
                    + "to the first worker whose recent prompt characters stay within the load bound with it",
            "off: on Mooncake it did not beat the default ([POLICY.md](POLICY.md), \"One-off placement\")",
            "a request no worker holds beyond the shared prefix and whose opening was not seen before is placed, "
                    + "within the load bound, with the other one-off work, so that it evicts one-off text rather "
                    + "than reusable prefixes ([POLICY.md](POLICY.md))"));

    public static final Setting<Boolean> PD_DISAGGREGATION = declare(Setting.off("pd-disaggregation")
            .help("Prefill/decode mode: every request goes to a prefill worker and a decode worker at once.",
                    "regular workers, as the reference")
            .gateway(PD, different("as the reference: one prefill and one decode worker per request, the same body "
                    + "with `bootstrap_host`, `bootstrap_port` and `bootstrap_room` added to both at once, the decode "
                    + "answer relayed; a leg that fails before the client's first byte fails the pair, which is "
                    + "retried on other workers, and the prefill leg counts on its worker from its placement "
                    + "([PD.md](PD.md))")));
    public static final Setting<List<String>> PREFILL = declare(Setting.of("prefill", listOf(TEXT), List.of())
            .label("URL [BOOTSTRAP_PORT]").arity("1..2").check(WorkerUrls::prefillProblem)
            .help("A prefill worker and, when known, its bootstrap port (repeatable).", "none: prefill workers may "
                    + "also come through POST /workers or discovery")
            .gateway(PD, different("same; a prefill worker given no bootstrap port gets the "
                    + "`disaggregation_bootstrap_port` its `/get_server_info` reports")));
    public static final Setting<List<String>> DECODE = declare(Setting.of("decode", listOf(TEXT), List.of())
            .label("URL").arity("1").check(each(WorkerUrls::problem))
            .help("A decode worker (repeatable).", "none: decode workers may also come through POST /workers or "
                    + "discovery").gateway(PD, same()));
    public static final Setting<String> PREFILL_POLICY = declare(Setting.of("prefill-policy", TEXT, null)
            .shown("--policy").check(oneOf(PolicyFactory.NAMES))
            .help("Policy of the prefill leg, where the prefix cache pays (default: --policy).", REFERENCE)
            .gateway(PD, same("Policy of the prefill leg (default: `--policy`); its own instance and prefix tree per "
                    + "model, apart from the decode leg's, seeded with every prefill worker however it arrived")));
    public static final Setting<String> DECODE_POLICY = declare(Setting.of("decode-policy", TEXT,
                    DecodeBalancePolicy.NAME).check(oneOf(PolicyFactory.DECODE_NAMES))
            .help("Policy of the decode leg: decode_balance (the least outstanding context in flight) or any "
                    + "--policy name.", "a decode engine is handed the prompt's KV: no prefix there is worth aiming at")
            .gateway(PD, different("the reference defaults to `--policy`; Homing to `decode_balance`, the worker with "
                    + "the least outstanding context in flight, as a decode engine is handed the prompt's KV and a "
                    + "prefix policy there only skews the load ([PD.md](PD.md)); any `--policy` name is accepted")));

    public static final Setting<Long> WORKER_STARTUP_TIMEOUT_SECS = declare(
            Setting.of("worker-startup-timeout-secs", LONG, 1800L).check(above(0))
                    .help("Give up registering a worker after this.", "the reference's: a large model loads for "
                            + "tens of minutes")
                    .gateway(PD, same()));
    public static final Setting<Long> WORKER_STARTUP_CHECK_INTERVAL = declare(
            Setting.of("worker-startup-check-interval", LONG, 30L).check(above(0))
                    .help("Longest wait between registration probes; also the /get_load poll period.", REFERENCE)
                    .gateway(PD, same()));

    static {
        notYet(PD, Setting.off("mini-lb"), "Python mini load balancer for PD.");
    }

    public static final Setting<Boolean> SERVICE_DISCOVERY = declare(Setting.off("service-discovery")
            .help("Discover workers from Kubernetes pods (Running, Ready, with an IP).", "static workers only, as "
                    + "the reference").gateway(DISCOVERY, different("workers from Running, Ready pods with an IP, as "
                    + "the reference; Homing also drains a pod that loses readiness (the reference leaves it to health "
                    + "checks), drains before removing, corrects the workers from a full pod list every "
                    + "`--service-discovery-relist-interval-secs` and restarts a silent watch "
                    + "([KUBERNETES.md](KUBERNETES.md), [DIFFERENCES.md](DIFFERENCES.md))")));
    public static final Setting<List<String>> SELECTOR = declare(Setting.of("selector", listOf(TEXT), List.of())
            .label("k=v").arity("1..*").check(each(Settings::labelProblem))
            .help("Pod labels k=v; a pod must carry every one; none matches every pod.", REFERENCE)
            .gateway(DISCOVERY, same()));
    public static final Setting<Integer> SERVICE_DISCOVERY_PORT = declare(Setting.of("service-discovery-port",
            INTEGER, 80).check(port(1)).help("Worker port on discovered pods.", "the reference's: a pod's "
                    + "default HTTP port").gateway(DISCOVERY, different("the worker is `http://<pod IP>:<port>`, as "
                    + "the reference; a pod whose containers declare ports, none of them this one, is left out (it "
                    + "serves elsewhere)")));
    public static final Setting<String> SERVICE_DISCOVERY_NAMESPACE = declare(Setting.of(
            "service-discovery-namespace", TEXT, null).check(notBlank())
            .help("The namespace watched; none: every namespace (the shipped manifests name their own, for a "
                    + "namespaced Role).", REFERENCE).gateway(DISCOVERY, same()));

    public static final Setting<List<String>> PREFILL_SELECTOR = declare(roleSelector("prefill"));
    public static final Setting<List<String>> DECODE_SELECTOR = declare(roleSelector("decode"));
    public static final Setting<String> BOOTSTRAP_PORT_ANNOTATION = declare(Setting.of("bootstrap-port-annotation",
            TEXT, "sglang.ai/bootstrap-port").check(notBlank()).help("Pod annotation holding the bootstrap port.",
                    REFERENCE).gateway(DISCOVERY, same("Pod annotation holding a prefill pod's bootstrap port; "
                    + "without it the worker's `/get_server_info` says")));
    public static final Setting<Long> SERVICE_DISCOVERY_RELIST_INTERVAL_SECS = declare(discoverySeconds(
            "service-discovery-relist-interval-secs", 60, above(0),
            "How often the whole pod list is read and the workers corrected to it", "a missed event costs at most "
                    + "a minute, for one small list a minute per replica", "how often the whole pod list is read "
                    + "and the workers corrected to it, whatever the watch said"));
    public static final Setting<Long> SERVICE_DISCOVERY_WATCH_SILENCE_SECS = declare(discoverySeconds(
            "service-discovery-watch-silence-secs", 300, above(0),
            "A watch silent this long (no event, no bookmark) is restarted", "the API server bookmarks a watch "
                    + "that asks for it about once a minute", "a watch that delivered neither an event nor a "
                    + "bookmark this long is restarted"));
    public static final Setting<Long> SERVICE_DISCOVERY_DRAIN_GRACE_SECS = declare(discoverySeconds(
            "service-discovery-drain-grace-secs", 180, atLeast(0),
            "How long a going pod's requests may run before its worker is removed", "as "
                    + "--shutdown-grace-period-secs: a stream gets the same time whichever side goes away",
            "how long a going pod's requests in flight may run before its worker is removed"));
    public static final Setting<String> SERVICE_DISCOVERY_API_SERVER = declare(Setting.of(
            "service-discovery-api-server", TEXT, null).label("URL")
            .check(that(url -> url.startsWith("http://") || url.startsWith("https://"), "must be an http:// or "
                    + "https:// URL"))
            .help("API server URL to use, with no credentials (kubectl proxy) (Homing).", "the pod's service "
                    + "account, else the kubeconfig").gateway(DISCOVERY, homing("an API server URL to use, with no "
                    + "credentials (`kubectl proxy`); none: the pod's service account, else the kubeconfig")));

    public static final Setting<String> LOG_DIR = declare(Setting.of("log-dir", TEXT, null)
            .help("Also write logs to homing.log in this directory.", "stdout only, for container log collectors")
            .gateway(LOGGING, same()));
    public static final Setting<String> LOG_LEVEL = declare(Setting.of("log-level", TEXT, "info")
            .check(oneOf(LOG_LEVELS, level -> level.toLowerCase(Locale.ROOT), ""))
            .help("trace, debug, info, warn or error.", "start-up, workers and errors, without a line per request "
                    + "detail").gateway(LOGGING, same()));
    public static final Setting<Boolean> LOG_JSON = declare(Setting.off("log-json")
            .help("Write one JSON object per log line (Homing).", "plain lines, for people; log shippers opt in")
            .gateway(LOGGING, homing("one flat JSON object a line: `time`, `level`, `logger`, `thread`, `message`, "
                    + "and the access log's fields (`request_id`, `route`, `model`, `worker`, `branch`, `status`, "
                    + "`total_ms`, ...; `trace_id` when traced), numbers as numbers")));

    public static final Setting<String> PROMETHEUS_HOST = declare(Setting.of("prometheus-host", TEXT, "0.0.0.0")
            .help("Address of the metrics listener.", "all interfaces, for a scraper on another machine")
            .gateway(METRICS, same()));
    public static final Setting<Integer> PROMETHEUS_PORT = declare(Setting.of("prometheus-port", INTEGER, 29_000)
            .check(port(-1)).help("Metrics port (-1: no metrics listener).", "the reference's metrics port")
            .gateway(METRICS, same()));
    public static final Setting<List<Double>> PROMETHEUS_DURATION_BUCKETS = declare(
            Setting.of("prometheus-duration-buckets", listOf(NUMBER), List.of(0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                    0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0))
                    .label("SECONDS").shown("0.001 ... 240").check(Check.<Double>notEmpty().and(strictlyIncreasing()))
                    .help("Upper bounds of duration histograms.", "the reference's buckets: 1 ms to 240 s, for "
                            + "first tokens and for whole streams")
                    .gateway(METRICS, same()));

    public static final Setting<List<String>> REQUEST_ID_HEADERS = declare(
            Setting.of("request-id-headers", listOf(LOWER_CASE_TEXT),
                    List.of("x-request-id", "x-correlation-id", "x-trace-id", "request-id"))
                    .label("HEADER").check(notEmpty())
                    .help("Headers that name a request, first present wins.", "the reference's, the names common "
                            + "proxies and tracers set")
                    .gateway(Group.REQUESTS, same()));
    public static final Setting<Long> REQUEST_TIMEOUT_SECS = declare(Setting.of("request-timeout-secs", LONG, 1800L)
            .check(above(0)).help("Whole-request time limit, streams included.", "the reference's: long generations "
                    + "stream for many minutes").gateway(Group.REQUESTS, same()));
    public static final Setting<Long> SHUTDOWN_GRACE_PERIOD_SECS = declare(
            Setting.of("shutdown-grace-period-secs", LONG, 180L).check(atLeast(0))
                    .help("How long requests may finish at shutdown.", REFERENCE).gateway(Group.REQUESTS, same()));
    public static final Setting<Long> MAX_PAYLOAD_SIZE = declare(Setting.of("max-payload-size", LONG, 536_870_912L)
            .check(above(0)).help("Largest request body in bytes; larger gets 413.", "the reference's 512 MiB: "
                    + "long multimodal prompts").gateway(Group.REQUESTS, same()));
    public static final Setting<Long> MAX_BODY_MEMORY = declare(Setting.of("max-body-memory", LONG, null)
            .label("BYTES").shown("a quarter of the heap").check(above(0))
            .help("Bytes of request bodies held in memory at once, all requests together (Homing); past it 503 "
                    + "with Retry-After, or 413 for a body larger than it alone.", "bodies are held on the heap "
                    + "once (and copied off it once as they are sent); a quarter leaves the rest to the prefix "
                    + "trees, the streams and the collector")
            .gateway(Group.REQUESTS, homing("bytes of request bodies held in memory at once, counted as they "
                    + "arrive (a chunked body twice: its pieces and the one buffer they are joined into); a body "
                    + "that would go over gets 503 `body_memory_full` with `Retry-After`, one larger than the "
                    + "budget alone 413; by default a quarter of the heap (`-Xmx`); see `homing_body_memory_bytes`")));
    public static final Setting<List<String>> CORS_ALLOWED_ORIGINS = declare(
            Setting.of("cors-allowed-origins", listOf(TEXT), List.of()).label("ORIGIN").arity("0..*")
                    .help("Allowed CORS origins (default: any).", REFERENCE).gateway(Group.REQUESTS, same()));

    public static final Setting<Integer> MAX_CONCURRENT_REQUESTS = declare(Setting.of("max-concurrent-requests",
            INTEGER, -1).check(that(n -> n == -1 || n >= 1, "must be -1 or >= 1")).gateway(ADMISSION, different(
            "a strict cap on inference requests in flight (the reference's token bucket also refills over time, so "
                    + "its cap creeps up)"))
            .help("Inference requests admitted at once, a strict cap (-1: off).", "off, as the reference: the "
                    + "engines queue"));
    public static final Setting<Integer> QUEUE_SIZE = declare(Setting.of("queue-size", INTEGER, 100).check(atLeast(0))
            .help("Requests waiting for admission, in order; beyond it 429.", REFERENCE).gateway(ADMISSION,
                    different("waiting requests are admitted in strict FIFO order; 429 with `Retry-After` when full")));
    public static final Setting<Long> QUEUE_TIMEOUT_SECS = declare(Setting.of("queue-timeout-secs", LONG, 60L)
            .check(above(0)).help("Longest wait for admission; beyond it 408.", REFERENCE)
            .gateway(ADMISSION, same("408 with `Retry-After` after this wait")));
    public static final Setting<Integer> RATE_LIMIT_TOKENS_PER_SECOND = declare(
            Setting.of("rate-limit-tokens-per-second", INTEGER, null).gateway(ADMISSION, different("when set, "
                    + "admissions per second on top of the cap; when not set, no rate limit (the reference uses the "
                    + "cap as the rate)")).help("Admissions per second on top of the cap (default: no rate limit).",
                    "no rate limit: the cap alone decides"));

    public static final Setting<Integer> RETRY_MAX_RETRIES = declare(Setting.of("retry-max-retries", INTEGER, 5)
            .check(atLeast(1)).help("Attempts per request in all, the first included.", "the reference's; a failed "
                    + "worker is avoided, so five attempts outlast a fleet's usual failures")
            .gateway(RETRIES, same("attempts in all, the first included; a retry prefers a worker that has not "
                    + "failed this request; a request a worker received whole and never answered is retried at "
                    + "most `--retry-max-delivered` times")));
    public static final Setting<Integer> RETRY_MAX_DELIVERED = declare(Setting.of("retry-max-delivered", INTEGER, 1)
            .check(atLeast(0)).help("Retries of a request a worker received whole but never answered, each on a "
                    + "worker it never reached (0: never sent twice).", "the engine may be running it: one more "
                    + "try on another worker rides out an engine that died, and a request that kills its engine "
                    + "takes down two at most, never the whole fleet; nginx and HAProxy resend none by default")
            .gateway(RETRIES, homing("retries of a request a worker received whole, its connection then closed or "
                    + "reset with no answer (the engine may be running it), each on a worker it never reached; "
                    + "0 never sends a request twice; within `--retry-max-retries`")));
    public static final Setting<Long> RETRY_INITIAL_BACKOFF_MS = declare(Setting.of("retry-initial-backoff-ms", LONG,
            50L).check(atLeast(0)).help("First backoff.", REFERENCE).gateway(RETRIES, same()));
    public static final Setting<Long> RETRY_MAX_BACKOFF_MS = declare(Setting.of("retry-max-backoff-ms", LONG, 30_000L)
            .check(atLeast(0)).gateway(RETRIES, same()).help("Longest backoff.", REFERENCE));
    public static final Setting<Double> RETRY_BACKOFF_MULTIPLIER = declare(Setting.of("retry-backoff-multiplier",
            NUMBER, 1.5).check(atLeast(1)).gateway(RETRIES, same()).help("Backoff growth.", REFERENCE));
    public static final Setting<Double> RETRY_JITTER_FACTOR = declare(Setting.of("retry-jitter-factor", NUMBER, 0.2)
            .check(between(0, 1)).gateway(RETRIES, same())
            .help("Backoff jitter.", "the reference's: retries of one outage spread out"));
    public static final Setting<Boolean> DISABLE_RETRIES = declare(Setting.off("disable-retries").help(
            "One attempt per request.", REFERENCE).gateway(RETRIES, same("one attempt per request (a refused "
            + "connection included)")));

    public static final Setting<Integer> CB_FAILURE_THRESHOLD = declare(
            Setting.of("cb-failure-threshold", INTEGER, 10).check(atLeast(1)).gateway(CIRCUIT_BREAKER, different(
                    "only worker failures count (5xx, 408, timeouts, connection failures); a client's 4xx is a "
                            + "success, 429 counts neither way"))
                    .help("Failures in a row that open the circuit.", "the reference's; only the worker's own "
                            + "failures count, so ten in a row mean it is down"));
    public static final Setting<Integer> CB_SUCCESS_THRESHOLD = declare(
            Setting.of("cb-success-threshold", INTEGER, 3).check(atLeast(1))
                    .gateway(CIRCUIT_BREAKER, different("also the number of probes half-open lets through at a time "
                            + "(the reference lets all traffic through)"))
                    .help("Successes in a row that close it.", REFERENCE));
    public static final Setting<Long> CB_TIMEOUT_DURATION_SECS = declare(Setting.of("cb-timeout-duration-secs", LONG,
            60L).check(atLeast(0)).help("How long it stays open.", REFERENCE).gateway(CIRCUIT_BREAKER, same()));
    public static final Setting<Long> CB_WINDOW_DURATION_SECS = declare(Setting.of("cb-window-duration-secs", LONG,
            120L).help("Accepted and unused, as by the reference.", REFERENCE)
            .gateway(CIRCUIT_BREAKER, same("accepted and unused, as by the reference (counting is consecutive)")));
    public static final Setting<Boolean> DISABLE_CIRCUIT_BREAKER = declare(Setting.off("disable-circuit-breaker")
            .help("Circuits never open.", REFERENCE).gateway(CIRCUIT_BREAKER, same("circuits never open")));

    public static final Setting<Integer> HEALTH_FAILURE_THRESHOLD = declare(Setting.of("health-failure-threshold",
            INTEGER, 3).check(above(0)).help("Failed probes in a row before unhealthy.", REFERENCE)
            .gateway(HEALTH, same()));
    public static final Setting<Integer> HEALTH_SUCCESS_THRESHOLD = declare(
            Setting.of("health-success-threshold", INTEGER, 2).check(above(0)).gateway(HEALTH, same())
                    .help("Good probes in a row before healthy again.", REFERENCE));
    public static final Setting<Long> HEALTH_CHECK_TIMEOUT_SECS = declare(Setting.of("health-check-timeout-secs", LONG,
            5L).check(above(0)).gateway(HEALTH, same()).help("One probe's time limit.", REFERENCE));
    public static final Setting<Long> HEALTH_CHECK_INTERVAL_SECS = declare(Setting.of("health-check-interval-secs",
            LONG, 60L).check(above(0)).gateway(HEALTH, same())
            .help("Probe period.", "the reference's; failed requests bench a worker sooner"));
    public static final Setting<String> HEALTH_CHECK_ENDPOINT = declare(
            Setting.of("health-check-endpoint", TEXT, "/health")
                    .check(that(path -> path.startsWith("/"), "must start with '/'"))
                    .help("Path probed on each worker.", "SGLang's and vLLM's health route")
                    .gateway(HEALTH, same()));
    public static final Setting<Boolean> DISABLE_HEALTH_CHECK = declare(Setting.off("disable-health-check")
            .help("Treat every worker as healthy.", REFERENCE).gateway(HEALTH, same()));

    /**
     * The engine's tokenizer: the simulated engine counts prompts with it; the gateway reads its engines' KV events
     * in its tokens. One setting for both, so they name the same files the same way.
     */
    public static final Setting<String> TOKENIZER_PATH = declare(Setting.of("tokenizer-path", TEXT, null)
            .label("PATH").check(notBlank())
            .help("The model's tokenizer: a directory holding tokenizer.json (and tokenizer_config.json and "
                    + "chat_template.jinja, whose template renders chats), that tokenizer.json itself, or demo (a small bundled byte-level "
                    + "BPE with a ChatML template). The gateway tokenizes prompts with it for the exact view (default: "
                    + "it asks the engine's /tokenize); the simulated engine counts its prompts' tokens with it "
                    + "(default: its own, 4 characters a token).",
                    "none: the gateway asks the engine, which always tokenizes as itself, at one round trip; the "
                    + "built-in simulated tokenizer needs no files")
            .gateway(TOKENIZER, Compatibility.different("the gateway tokenizes only for the exact KV view "
                    + "([KV_EVENTS.md](KV_EVENTS.md)), a request's routing text stays its characters; `homing "
                    + "sim-engine` reads it too"))
            .alsoIn(SIM_ENGINE));

    /** The model's directory, for its tokenizer where {@link #TOKENIZER_PATH} names none (as an engine reads it). */
    public static final Setting<String> MODEL_PATH = declare(Setting.of("model-path", TEXT, null)
            .label("DIR").check(notBlank())
            .help("The model's local directory: where --tokenizer-path is not given, the tokenizer is the one there "
                    + "(tokenizer.json, tokenizer_config.json, chat_template.jinja).",
                    "none: --tokenizer-path, else as --tokenizer-path's default")
            .gateway(TOKENIZER, Compatibility.different("a local directory, read only for its tokenizer (the exact "
                    + "KV view's): Homing downloads nothing, a hub model id is refused"))
            .alsoIn(SIM_ENGINE));

    /** A chat template in place of the tokenizer's own, as an engine's {@code --chat-template} replaces its model's. */
    public static final Setting<String> CHAT_TEMPLATE = declare(Setting.of("chat-template", TEXT, null)
            .label("FILE").check(notBlank())
            .help("A Jinja chat template file that replaces the tokenizer's own, as the engine's --chat-template "
                    + "does: give both the same file, or the gateway renders chats other than the engine. Needs "
                    + "--tokenizer-path or --model-path.",
                    "none: the tokenizer's own template")
            .gateway(TOKENIZER, Compatibility.different("a Jinja file, rendered to tokenize chats for the exact KV "
                    + "view; SGLang's named or JSON conversation templates are refused"))
            .alsoIn(SIM_ENGINE));

    static {
        notYet(TOKENIZER, Setting.off("tokenizer-cache-enable-l0"), "Exact-match tokenizer cache.");
        notYet(TOKENIZER, Setting.of("tokenizer-cache-l0-max-entries", INTEGER, 10_000), "Its size.");
        notYet(TOKENIZER, Setting.off("tokenizer-cache-enable-l1"), "Prefix tokenizer cache.");
        notYet(TOKENIZER, Setting.of("tokenizer-cache-l1-max-memory", LONG, 52_428_800L), "Its memory, bytes.");
    }

    static {
        notYet(PARSERS, Setting.of("reasoning-parser", TEXT, null), "Reasoning-content parser.");
        notYet(PARSERS, Setting.of("tool-call-parser", TEXT, null), "Tool-call parser.");
        notYet(PARSERS, Setting.of("mcp-config-path", TEXT, null), "MCP servers.");
    }

    public static final Setting<String> BACKEND = declare(Setting.of("backend", TEXT, "sglang").alias("runtime")
            .check(oneOf(BACKENDS, name -> name, " (others are not supported yet)"))
            .help("Engine behind the workers: sglang or vllm.", "the reference's engine")
            .gateway(Group.BACKEND, different("sglang or vllm")));

    static {
        notYet(Group.BACKEND, Setting.of("history-backend", TEXT, "memory"), "Responses/Conversations storage.");
        notYet(Group.BACKEND, Setting.off("enable-wasm"), "WASM middleware.");
    }

    static {
        storage("Oracle", "oracle-", List.of("wallet-path", "tns-alias", "connect-descriptor", "username", "password"),
                List.of("pool-min", "pool-max", "pool-timeout-secs"));
        storage("PostgreSQL", "postgres-", List.of("db-url"), List.of("pool-max-size"));
        storage("Redis", "redis-", List.of("url"), List.of("pool-max-size"));
        notYet(STORAGE, Setting.of("redis-retention-days", INTEGER, 30), "Days Redis keeps history; -1 keeps forever.");
    }

    public static final Setting<String> TLS_CERT_PATH = declare(Setting.of("tls-cert-path", TEXT, null).label("PEM")
            .help("Serve HTTPS with this certificate chain (with --tls-key-path; metrics stay HTTP).",
                    "plain HTTP, behind a TLS-terminating proxy as the reference")
            .gateway(TLS, same("PEM certificate chain: the data-plane port serves HTTPS (HTTP/1.1); with "
                    + "`--tls-key-path`, both or neither; the metrics port stays plain HTTP")));
    public static final Setting<String> TLS_KEY_PATH = declare(Setting.of("tls-key-path", TEXT, null).label("PEM")
            .help("Private key of --tls-cert-path.", "none, as the certificate")
            .gateway(TLS, same("PEM private key (PKCS#8 or PKCS#1) of `--tls-cert-path`; a missing, "
                    + "unreadable or non-PEM file stops the start with a message naming the flag")));

    static {
        notYet(TLS, Setting.of("client-cert-path", TEXT, null), "mTLS to workers (not supported yet).");
        notYet(TLS, Setting.of("client-key-path", TEXT, null), "mTLS to workers (not supported yet).");
        notYet(TLS, Setting.of("ca-cert-paths", listOf(TEXT), List.of()), "CAs of workers (not supported yet).");
    }

    public static final Setting<Boolean> ENABLE_TRACE = declare(Setting.off("enable-trace")
            .help("Export OpenTelemetry traces: a span per inference request, a child per attempt at a worker.",
                    "off, as the reference: a gateway without a collector pays nothing for traces")
            .gateway(TRACING, different("OpenTelemetry over OTLP/HTTP, not gRPC: a server span per inference "
                    + "request with the routing decision (policy, branch, match ratio, worker, model, held time, "
                    + "retries), a client span per attempt at a worker, whose W3C `traceparent` the engine gets; an "
                    + "incoming `traceparent` is continued ([DIFFERENCES.md](DIFFERENCES.md))")));
    public static final Setting<String> OTLP_TRACES_ENDPOINT = declare(Setting.of("otlp-traces-endpoint", TEXT,
            OtlpEndpoint.DEFAULT).label("ENDPOINT").check(OtlpEndpoint::problem)
            .help("Where traces go, over OTLP/HTTP: host:port (then /v1/traces), or the full URL.", "the "
                    + "collector's OTLP/HTTP port on the same host (the reference's 4317 is OTLP/gRPC's)")
            .gateway(TRACING, different("OTLP/HTTP (protobuf): `host:port` posts to `http://host:port/v1/traces`, a "
                    + "URL with no path gets `/v1/traces`; the default is the OTLP/HTTP port 4318, where the "
                    + "reference's 4317 is OTLP/gRPC's")));

    public static final Setting<String> API_KEY = declare(Setting.of("api-key", TEXT, null).check(notBlank())
            .help("Clients must send it as Bearer; also sent to --worker-urls.", "none: a gateway on a private "
                    + "network, as the reference")
            .gateway(AUTHENTICATION, different("Clients must send it as Bearer; also sent to --worker-urls. "
                    + "Also the admin key unless `--admin-api-key` is set; with no key at all admin routes answer 403 "
                    + "(see `--allow-unauthenticated-admin`); `/engine_metrics` is an admin route")));
    public static final Setting<String> ADMIN_API_KEY = declare(Setting.of("admin-api-key", TEXT, null)
            .check(notBlank()).help("Bearer key of the admin routes (Homing; default: --api-key).", "one key for "
                    + "both unless the operator wants two")
            .gateway(AUTHENTICATION, homing("Bearer key of the admin routes (`/workers*`, `/flush_cache`, "
                    + "`/get_loads`, `/engine_metrics`)")));
    public static final Setting<Boolean> ALLOW_UNAUTHENTICATED_ADMIN = declare(
            Setting.off("allow-unauthenticated-admin")
                    .help("Admin routes open when no key is set (Homing; default: refused with 403).", "a gateway "
                            + "that can add workers must not be open by accident")
                    .gateway(AUTHENTICATION, homing("admin routes open when neither key is set (by default "
                            + "they answer 403 `admin_disabled`)")));
    public static final Setting<List<String>> WORKER_HOST_ALLOW_LIST = declare(
            Setting.of("worker-host-allow-list", listOf(TEXT), List.of()).label("HOST").arity("0..*")
                    .help("Hosts POST /workers may add: names, *.suffix, addresses, CIDR blocks, or * for any (Homing; "
                            + "default: the --worker-urls hosts and loopback).", "the workers the operator named, "
                            + "and sidecars on the same machine; nothing else inside the network")
                    .gateway(AUTHENTICATION, homing("hosts `POST /workers` may add (names, `*.suffix`, "
                            + "addresses, CIDR blocks, or `*`); by default the hosts of `--worker-urls` and loopback; "
                            + "others get 403 `worker_host_not_allowed`")));

    static {
        notYet(AUTHENTICATION, Setting.of("jwt-issuer", TEXT, null), "JWT issuer (not supported yet).");
        notYet(AUTHENTICATION, Setting.of("jwt-audience", TEXT, null), "JWT audience (not supported yet).");
        notYet(AUTHENTICATION, Setting.of("jwt-jwks-uri", TEXT, null), "JWT key set (not supported yet).");
        notYet(AUTHENTICATION, Setting.of("jwt-role-claim", TEXT, "roles"),
                "JWT claim holding the roles (not supported yet).");
        notYet(AUTHENTICATION, Setting.of("jwt-role-mapping", listOf(TEXT), List.of()),
                "JWT roles to gateway roles (not supported yet).");
        notYet(AUTHENTICATION, Setting.of("control-plane-api-keys", listOf(TEXT),
                List.of()).label("id:name:role:key"), "Keys of the control plane (not supported yet).");
    }

    public static final Setting<Boolean> DISABLE_AUDIT_LOGGING = declare(Setting.off("disable-audit-logging")
            .help("Homing has no audit log; accepted.", REFERENCE)
            .gateway(AUTHENTICATION, different("accepted: Homing has no audit log")));

    public static final Setting<List<String>> REPLICA_SYNC = declare(Setting.of("replica-sync", listOf(TEXT),
                    List.of()).label("URL").arity("1..*").check(each(ReplicaSyncUrls::problem))
            .help("NATS servers (nats://host:port; several for a cluster) through which the gateway's replicas keep "
                    + "each other's trees and loads in step (Homing); credentials from --replica-sync-credentials or "
                    + "HOMING_NATS_USER/HOMING_NATS_PASSWORD/HOMING_NATS_TOKEN/HOMING_NATS_CREDS.", "off: one "
                    + "gateway needs no bus")
            .gateway(MESH, homing("replicas share every routing decision (block hashes, never prompt text), the "
                    + "engines' corrections and their loads over NATS publish/subscribe; a replica that starts late "
                    + "takes a snapshot from a warm one; without the bus each routes on its own view "
                    + "([REPLICAS.md](REPLICAS.md))")));
    public static final Setting<Path> REPLICA_SYNC_CREDENTIALS = declare(Setting.file("replica-sync-credentials")
            .label("FILE").help("NATS credentials for --replica-sync: a .creds file (user JWT and NKey seed), or one "
                    + "line user:password, or one line token (Homing).", "none, or the HOMING_NATS_* variables")
            .gateway(MESH, homing("NATS credentials for `--replica-sync`, read from a file (a `.creds` file, "
                    + "`user:password` or a token), never from the command line")));
    public static final Setting<String> REPLICA_SYNC_SUBJECT = declare(Setting.of("replica-sync-subject", TEXT,
                    "homing.replicas").check(that(s -> s.matches("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*"),
                    "must be NATS subject tokens (letters, digits, - and _) joined by dots"))
            .help("Prefix of the NATS subjects the replicas use; replicas of one fleet share it (Homing).", "one "
                    + "fleet per NATS server; another fleet on the same server takes its own")
            .gateway(MESH, homing("prefix of the NATS subjects the replicas of one fleet share")));
    public static final Setting<Integer> REPLICA_SYNC_BLOCK_CHARS = declare(Setting.of("replica-sync-block-chars",
                    INTEGER, 256).check(positive())
            .help("Characters per block of the hashes that name prefixes on the bus: a remote placement matches "
                    + "up to its last whole block (Homing).", "measured: the hit rate of one gateway at 8 bytes a "
                    + "block of 256 characters ([REPLICAS.md](REPLICAS.md))")
            .gateway(MESH, homing("characters per block of the hashes that name prefixes on the bus; a placement "
                    + "made by another replica matches up to its last whole block")).alsoIn(SIMULATE));
    public static final Setting<Long> REPLICA_SYNC_WARM_TIMEOUT_SECS = declare(Setting.of(
                    "replica-sync-warm-timeout-secs", LONG, 10L).check(atLeast(0))
            .help("Readiness waits, at most this long after start, until the replica has a warm sibling's "
                    + "snapshot (or knows it has no sibling); 0 does not wait (Homing).", "a snapshot takes well "
                    + "under a second; a bus that is down must not keep the replica out of service for long")
            .gateway(MESH, homing("`/readiness` waits, at most this long after start, until the replica has a "
                    + "warm sibling's snapshot or knows it has none (`homing_replica_warm`)")));

    // ---------------------------------------------------------------------------------------------------------------
    // The engines' KV events: the exact view (docs/KV_EVENTS.md)

    public static final Setting<String> KV_EVENTS = declare(Setting.of("kv-events", TEXT, "auto")
            .label("auto|off|TEMPLATE").check(that(Settings::kvEventsValue,
                    "must be auto, off, or a ZMQ endpoint template such as tcp://{host}:5557"))
            .help("Where each worker's engine publishes its KV events (ZMQ): auto asks the worker's /get_server_info "
                    + "for kv_events_config, else tcp://<worker host>:5557; off subscribes to none; a template such "
                    + "as tcp://{host}:5557 names it, {host} the worker's host (Homing).", "the engines' own default "
                    + "endpoint, found without a setting where the engine reports it")
            .gateway(Group.KV_EVENTS, homing("subscribe to each engine's KV events and route on what its cache holds "
                    + "where they flow, on the prefix tree elsewhere ([KV_EVENTS.md](KV_EVENTS.md))")));
    public static final Setting<Long> KV_EVENTS_SILENCE_MS = declare(Setting.of("kv-events-silence-ms", LONG, 1_000L)
            .check(above(0))
            .help("Milliseconds a worker may stay silent after a request placed on it was prefilled with blocks "
                    + "it did not hold, before its exact view counts as gone (Homing).", "half of the two seconds "
                    + "within which routing must stop trusting a stream that stopped; an idle engine is never silent")
            .gateway(Group.KV_EVENTS, homing("how long a worker that should have published (a request was prefilled "
                    + "there) may stay silent before its exact view is set aside")));
    public static final Setting<Long> KV_INDEX_MAX_BLOCKS = declare(Setting.of("kv-index-max-blocks", LONG,
                    1L << 20).check(above(0))
            .help("Engine blocks the exact index records over all workers of a model; stores past it are refused "
                    + "and counted (Homing).", "about 270 MB at most with vLLM's 16-token blocks (16 Mi tokens: "
                    + "four engines of 4 Mi tokens), 170 MB with SGLang's one-token pages")
            .gateway(Group.KV_EVENTS, homing("cap on the engine blocks a model's exact index records "
                    + "(`homing_kv_index_blocks`, `homing_kv_index_bytes`, `homing_kv_index_refused_total`)")));
    public static final Setting<Integer> KV_BLOCK_TOKENS = declare(Setting.of("kv-block-tokens", INTEGER, 16)
            .check(positive())
            .help("Tokens per block of the gateway's own hashes of the engines' cached prefixes (Homing).",
                    "vLLM's default block size, so each of its blocks is one of ours; SGLang's one-token pages "
                    + "are grouped into it; a smaller block costs more hashing for a gain under 16 tokens a prompt")
            .gateway(Group.KV_EVENTS, homing("tokens per block of the gateway's own hashes of what the engines cache; "
                    + "a prompt matches up to its last whole block")));

    private static boolean kvEventFaultValue(String value) {
        try {
            KvEventFault.parse(value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** {@code auto}, {@code off}, or an endpoint template naming a ZMQ transport. */
    private static boolean kvEventsValue(String value) {
        return value.equals("auto") || value.equals("off") || value.matches("(tcp|ipc)://\\S+");
    }

    static {
        String instead = "Homing's replicas keep each other in step through NATS instead: use --replica-sync "
                + "nats://HOST:PORT (DIFFERENCES.md says why)";
        Setting.Builder<?>[] mesh = {Setting.off("enable-mesh"), Setting.of("mesh-server-name", TEXT, null),
            Setting.of("mesh-host", TEXT, "0.0.0.0"), Setting.of("mesh-port", INTEGER, 39_527),
            Setting.of("mesh-peer-urls", listOf(TEXT), List.of())};
        String[] help = {"High-availability mesh of gateways.", "This gateway's name in the mesh.",
            "Address of the mesh listener.", "Port of the mesh listener.", "The other gateways."};
        for (int i = 0; i < mesh.length; i++) {
            declare(mesh[i].help(help[i] + " Refused: see --replica-sync.", REFERENCE
                    + "; at it the flag asks for nothing Homing lacks").gateway(MESH, Compatibility.replacedBy(instead)));
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // homing sim-engine: one simulated engine over HTTP

    public static final Setting<String> ENGINE_HOST = declare(
            Setting.of("host", TEXT, SimEngineOptions.defaults().host())
                    .help("Address to listen on.", "loopback: a test engine is nobody else's business")
                    .in(SERVER, SIM_ENGINE));
    public static final Setting<Integer> ENGINE_PORT = declare(Setting.of("port", INTEGER, 30_000).check(port(0))
            .help("Port to listen on, 0 for any free port.", "SGLang's port").in(SERVER, SIM_ENGINE));
    public static final Setting<String> MODEL_NAME = declare(
            Setting.of("model-name", TEXT, SimEngineOptions.DEFAULT_MODEL).alias("served-model-name").check(notBlank())
                    .help("Model id served and echoed.", "the model whose timing the engine model simulates")
                    .in(SERVER, SIM_ENGINE));
    public static final Setting<Double> TIME_SCALE = declare(
            Setting.of("time-scale", NUMBER, SimEngineOptions.defaults().timeScale())
                    .check(that(x -> x > 0 && x <= SimEngineOptions.MAX_TIME_SCALE,
                            "must be above 0 and at most " + (long) SimEngineOptions.MAX_TIME_SCALE))
                    .help("Run this many times faster than real time.", "real time, as a GPU would answer")
                    .in(SERVER, SIM_ENGINE));

    public static final Setting<Integer> KV_TOKENS = declare(engine(Setting.of("kv-tokens", INTEGER,
            ENGINE.kvTokens()).check(positive()), "KV cache capacity of an engine in tokens.", "an H100 less an 8B "
            + "model's weights holds about 400,000 tokens"));
    public static final Setting<Integer> PAGE_SIZE = declare(engine(Setting.of("page-size", INTEGER, ENGINE.pageSize())
            .check(positive()), "Tokens per KV page.", "SGLang's: every token can be shared"));
    public static final Setting<Integer> MAX_RUNNING_REQUESTS = declare(engine(
            Setting.of("max-running-requests", INTEGER, ENGINE.maxRunningRequests()).check(positive()),
            "Most requests in an engine's running batch.", "a batch an H100 runs for an 8B model"));
    public static final Setting<Integer> CHUNKED_PREFILL_SIZE = declare(engine(Setting.of("chunked-prefill-size",
            INTEGER, ENGINE.chunkedPrefillSize()).check(positive()), "Most uncached prompt tokens per prefill step.",
            "SGLang's default for 80 GB GPUs"));
    public static final Setting<Integer> CONTEXT_LENGTH = declare(engine(Setting.of("context-length", INTEGER,
            ENGINE.contextLength()).check(positive()), "Longest prompt plus output in tokens.", "Llama 3.1's context"));
    public static final Setting<Double> PREFILL_TOKENS_PER_SECOND = declare(engine(
            Setting.of("prefill-tokens-per-second", NUMBER, TIMING.prefillTokensPerSecond()).check(positive()),
            "Prefill throughput for uncached tokens.", "an 8B model at a quarter of an H100's bf16 peak"));
    // The timing model counts nanoseconds; its flags microseconds, but for the cost of a context token.
    public static final Setting<Long> PREFILL_STEP_US = declare(engine(Setting.of("prefill-step-us", LONG,
            TimeUnit.NANOSECONDS.toMicros(TIMING.prefillStepNanos())).check(atLeast(0)),
            "Fixed cost of a prefill step.", "scheduling, sampling and the launch of a forward pass"));
    public static final Setting<Long> DECODE_STEP_US = declare(engine(Setting.of("decode-step-us", LONG,
            TimeUnit.NANOSECONDS.toMicros(TIMING.decodeStepNanos())).check(atLeast(0)), "Fixed cost of a decode step.",
            "reading 16 GB of weights from HBM"));
    public static final Setting<Long> DECODE_US_PER_REQUEST = declare(engine(Setting.of("decode-us-per-request", LONG,
                    TimeUnit.NANOSECONDS.toMicros(TIMING.decodeNanosPerRequest())).check(atLeast(0)),
            "Decode step cost per request in the batch.", "compute and sampling of one more sequence"));
    public static final Setting<Long> DECODE_NS_PER_CONTEXT_TOKEN = declare(engine(
            Setting.of("decode-ns-per-context-token", LONG, TIMING.decodeNanosPerContextToken()).check(atLeast(0)),
            "Decode step cost per token of context in the batch.", "128 KiB of KV read at 3.35 TB/s"));

    /** SGLang's name for an engine that is neither prefill nor decode. */
    public static final String NOT_DISAGGREGATED = "null";
    public static final Setting<String> DISAGGREGATION_MODE = declare(Setting.of("disaggregation-mode", TEXT,
                    NOT_DISAGGREGATED).check(oneOf(List.of(NOT_DISAGGREGATED, "prefill", "decode")))
            .help("null, prefill or decode: a prefill engine computes prompts and hands their KV to the decode engine "
                    + "of the same bootstrap room, a decode engine receives it and decodes; either refuses a request "
                    + "without bootstrap fields.", "SGLang's: an engine that serves alone")
            .in(ENGINE_ROLES, SIM_ENGINE));
    public static final Setting<Integer> DISAGGREGATION_BOOTSTRAP_PORT = declare(Setting.of(
                    "disaggregation-bootstrap-port", INTEGER, 8998).check(port(0))
            .help("A prefill engine's bootstrap server, where decode engines register rooms; 0 for any free port.",
                    "SGLang's").in(ENGINE_ROLES, SIM_ENGINE));
    public static final Setting<Double> DISAGGREGATION_BOOTSTRAP_TIMEOUT_SECS = declare(engineRole(Setting.of(
                    "disaggregation-bootstrap-timeout-secs", NUMBER, ROLES.bootstrapTimeoutNanos() / 1e9)
            .check(above(0)), "A room whose partner has not come by then fails: a prefill request no decode engine "
                    + "registered, a decode request whose KV was not handed over (Homing; virtual seconds).",
            "SGLang's bootstrap and waiting timeouts, both 300 s"));
    public static final Setting<Double> KV_TRANSFER_BANDWIDTH_GBPS = declare(engineRole(Setting.of(
                    "kv-transfer-bandwidth-gbps", NUMBER, ROLES.linkGigabitsPerSecond()).check(positive()),
            "A decode engine's KV link, in Gb/s; transfers cross it one after the other (Homing).",
            "one 400 Gb/s RDMA NIC a GPU, as H100 nodes have"));
    public static final Setting<Double> KV_TRANSFER_LATENCY_MS = declare(engineRole(Setting.of(
                    "kv-transfer-latency-ms", NUMBER, ROLES.linkLatencyNanos() / 1e6).check(atLeast(0)),
            "Fixed cost of one KV transfer (Homing).", "the transfer engine's handshake and completion poll, not "
                    + "the wire's microseconds"));
    public static final Setting<Integer> DP_SIZE = declare(engineRole(Setting.of("dp-size", INTEGER, 1)
            .check(atLeast(1)), "Data-parallel ranks behind one port, each with its own cache and scheduler; a "
                    + "request's data_parallel_rank picks one, else they take turns.", "SGLang's: one rank"));

    public static final Setting<String> ENGINE_KV_EVENTS_CONFIG = declare(Setting.of("kv-events-config", TEXT, null)
            .label("JSON").check(notBlank())
            .help("Publish the KV cache's events over ZMQ, as SGLang's flag of this name takes it: "
                    + "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\",\"topic\":\"kv-events\"} (with "
                    + "\"replay_endpoint\" for vLLM's replay socket; a port * or 0 is any free one, reported in "
                    + "/get_server_info).", "SGLang's: no events")
            .in(ENGINE_ROLES, SIM_ENGINE));
    public static final Setting<String> ENGINE_KV_EVENTS_FORMAT = declare(Setting.of("kv-events-format", TEXT, "map")
            .label("map|array").check(that(v -> v.equals("map") || v.equals("array"), "must be map or array"))
            .help("How events are encoded: map (tagged maps, current vLLM and SGLang) or array (the older "
                    + "positional form).", "what current engines send")
            .in(ENGINE_ROLES, SIM_ENGINE));
    public static final Setting<String> ENGINE_KV_EVENTS_FAULT = declare(Setting.of("kv-events-fault", TEXT, "none")
            .label("none|drop:P|reorder:P").check(that(Settings::kvEventFaultValue,
                    "must be none, drop:P or reorder:P with P from 0 to 1"))
            .help("Lose (still numbered, kept for replay) or reorder this share of the KV event batches, on the "
                    + "seed's dice; POST /kv_events/{drop,resume,stop,start,restart} fault the stream at will.",
                    "a clean stream (Homing)")
            .in(ENGINE_ROLES, SIM_ENGINE));

    public static final Setting<Long> ENGINE_SEED = declare(Setting.of("seed", LONG, ENGINE.seed())
            .help("Seed of the output words and the fault dice.", "the engine model's: answers repeat run to run")
            .in(FAULTS, SIM_ENGINE));
    public static final Setting<Double> FAIL_RATE = declare(fault(Setting.of("fail-rate", NUMBER, NO_FAULTS.failRate())
            .check(between(0, 1)), "Share of inference requests that fail at once."));
    public static final Setting<Integer> FAIL_STATUS = declare(Setting.of("fail-status", INTEGER,
            NO_FAULTS.failStatus()).check(between(400, 599)).in(FAULTS, SIM_ENGINE)
            .help("HTTP status of those failures.", "a worker failure, which the gateway retries"));
    public static final Setting<Integer> STALL_AFTER_TOKENS = declare(fault(Setting.of("stall-after-tokens", INTEGER,
            NO_FAULTS.stallAfterTokens()), "Stop sending after this many output tokens, keeping the connection open "
            + "(0: off)."));
    public static final Setting<Integer> RESET_AFTER_TOKENS = declare(fault(Setting.of("reset-after-tokens", INTEGER,
            NO_FAULTS.resetAfterTokens()), "Close the connection after this many output tokens (0: off)."));
    public static final Setting<Integer> DIE_AFTER_REQUESTS = declare(fault(
            Setting.of("die-after-requests", INTEGER, NO_FAULTS.dieAfterRequests()),
            "Stop listening after this many inference requests (0: off)."));
    public static final Setting<Long> SLOW_HEALTH_MS = declare(fault(Setting.of("slow-health-ms", LONG,
            NO_FAULTS.slowHealthMillis()), "Delay health answers by this much (0: off)."));
    public static final Setting<Path> RECORD_REQUEST_IDS = declare(Setting.file("record-request-ids").label("FILE")
            .help("Append the x-request-id of each fully answered request to FILE, one a line (default: off).",
                    "off: only the fault suite counts answers").in(FAULTS, SIM_ENGINE));

    // ---------------------------------------------------------------------------------------------------------------
    // homing simulate and homing compare: the offline simulator (the engine model and the policies above too)

    public static final Setting<String> WORKLOAD = declare(Setting.of("workload", TEXT, null).label("NAME")
            .help("mooncake, generated-shared-prefix, multi-turn, azure or mtbench (default: mooncake with --trace, "
                    + "generated-shared-prefix without).", "the trace when one is given, else a workload that needs "
                    + "no file").in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Path> TRACE = declare(Setting.file("trace").label("FILE")
            .help("Trace file: Mooncake JSONL, Azure CSV or MT-Bench question.jsonl.", "none: generated workloads "
                    + "need no file").in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Double> RATE_SCALE = declare(Setting.of("rate-scale", NUMBER, 1.0).label("X")
            .check(above(0)).help("Replay a trace X times faster than recorded.", "the load the trace recorded")
            .in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Boolean> SPREAD_BUCKETS = declare(Setting.of("spread-buckets", ValueType.SWITCH, true)
            .help("Spread the Mooncake trace's requests evenly over its 3 s timestamp buckets instead of sending each "
                    + "bucket at once.", "a bucket's requests did not arrive in one instant")
            .in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Integer> REQUESTS = declare(Setting.of("requests", INTEGER, null).label("N")
            .help("Send at most N conversations (default: the whole trace; 200 for multi-turn).", "the whole "
                    + "workload").in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Long> DURATION_SECS = declare(Setting.of("duration-secs", LONG, null).label("S")
            .help("Start no conversation after S seconds.", "the whole workload").in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Double> REQUEST_RATE = declare(Setting.of("request-rate", NUMBER, null).label("R")
            .help("Conversations started per second for generated workloads (default: all at once for "
                    + "generated-shared-prefix, 2 for multi-turn, 1 for mtbench).", "each workload's own pace")
            .in(Group.WORKLOAD, SIMULATE));
    public static final Setting<Integer> GROUPS = declare(sharedPrefix("groups", 64, "groups"));
    public static final Setting<Integer> PROMPTS_PER_GROUP = declare(sharedPrefix("prompts-per-group", 16,
            "prompts per group"));
    public static final Setting<Integer> SYSTEM_PROMPT_TOKENS = declare(sharedPrefix("system-prompt-tokens", 2048,
            "shared prompt length"));
    public static final Setting<Integer> QUESTION_TOKENS = declare(sharedPrefix("question-tokens", 128,
            "question length"));
    public static final Setting<Integer> OUTPUT_TOKENS = declare(sharedPrefix("output-tokens", 256, "answer length"));
    public static final Setting<Long> SIMULATION_SEED = declare(Setting.of("seed", LONG, 1L)
            .help("Seeds the workload, the policies and the engines' answers.", "any fixed seed: runs repeat")
            .in(Group.WORKLOAD, SIMULATE));

    public static final Setting<Integer> WORKERS = declare(Setting.of("workers", INTEGER, 8).check(atLeast(1))
            .help("Simulated engines (servers of --dp-size ranks in the dp fleets).", "a fleet large enough for "
                    + "balance to matter, small enough to run in seconds").in(FLEET, SIMULATE));
    public static final Setting<List<String>> FLEETS = declare(Setting.of("fleet", listOf(LOWER_CASE_TEXT),
                    List.of("regular")).label("KIND").arity("1").check(notEmpty())
            .help("Fleets to run each policy on, comma-separated: regular (--workers engines), pd (--prefill-workers "
                    + "and --decode-workers; the policy places the prefill leg), dp (--workers servers of --dp-size "
                    + "ranks, each taking its ranks in turn), dp-aware (the same ranks, the policy placing on each). "
                    + "More than one, or any but regular, prints a table of fleets.", "the regular fleet, as before")
            .in(FLEET, SIMULATE));
    public static final Setting<Integer> PREFILL_WORKERS = declare(Setting.of("prefill-workers", INTEGER, 4)
            .check(atLeast(1)).help("Prefill engines of the pd fleet.", "half of the default fleet")
            .in(FLEET, SIMULATE));
    public static final Setting<Integer> DECODE_WORKERS = declare(Setting.of("decode-workers", INTEGER, 4)
            .check(atLeast(1)).help("Decode engines of the pd fleet.", "the other half").in(FLEET, SIMULATE));

    public static final Setting<Double> LOAD_SAMPLE_INTERVAL_SECS = declare(
            Setting.of("load-sample-interval-secs", NUMBER, 5.0).check(atLeast(0))
                    .help("Simulated seconds between samples of each engine's load (KV tokens in use), which "
                            + "power_of_two reads; 0 never samples.", "stale enough to show what a polled load "
                            + "costs, fresh enough to be useful")
                    .in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<Integer> GATEWAYS = declare(Setting.of("gateways", INTEGER, 1).check(atLeast(1))
            .help("Gateway replicas in front of the engines (of any fleet but pd); above 1 every policy also runs "
                    + "as that many replicas, with and without sync.", "one gateway, the figures every other report "
                    + "shows")
            .in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<String> GATEWAY_SPLIT = declare(Setting.of("gateway-split", LOWER_CASE_TEXT,
                    "round-robin").check(oneOf(List.of("round-robin", "random")))
            .help("How an L4 balancer spreads requests over the replicas: round-robin or random.", "a Kubernetes "
                    + "Service or HAProxy in its default mode").in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<Double> LATE_GATEWAY_SECS = declare(Setting.of("late-gateway-secs", NUMBER, 0.0)
            .check(atLeast(0)).help("With --gateways above 1, the last replica joins this many simulated seconds in, "
                    + "taking the first replica's snapshot; 0: every replica is there from the start.", "the fleet "
                    + "as it runs most of the time").in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<Double> BUS_DELAY_MS = declare(Setting.of("bus-delay-ms", NUMBER, 2.0)
            .check(atLeast(0)).help("Simulated time from a replica's decision to the others applying it.", "NATS "
                    + "on one network: well under a millisecond a hop, plus batching")
            .in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<String> ROUTING_VIEW = declare(Setting.of("routing-view", LOWER_CASE_TEXT, "tree")
            .check(oneOf(List.of("tree", "exact", "both")))
            .help("What cache_aware and load_aware_affinity judge the workers on: the prefix tree, the engines' KV "
                    + "events (exact), or both, each policy run both ways side by side; exact and both add the "
                    + "predicted-against-realised cache columns.", "the reports as they were")
            .in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<Double> KV_EVENT_DELAY_MS = declare(Setting.of("kv-event-delay-ms", NUMBER, 5.0)
            .check(atLeast(0)).help("With --routing-view exact or both: simulated time from an engine's change to "
                    + "its KV cache to the gateway's exact index applying it.", "a publisher's batching and one "
                    + "network hop: a few milliseconds")
            .in(SIMULATED_GATEWAY, SIMULATE));
    public static final Setting<Boolean> ROUTING_KEY = declare(Setting.of("routing-key", ValueType.SWITCH, true)
            .help("Send each conversation's id as X-SMG-Routing-Key, read by manual and consistent_hashing.",
                    "the header those two policies are for").in(SIMULATED_GATEWAY, SIMULATE));

    public static final Setting<Path> OUTPUT = declare(Setting.file("output").label("DIR")
            .help("Write the report (Markdown, JSON, SVG) here (compare: homing-compare without it).",
                    "simulate prints its table only; compare is simulate with a report")
            .in(REPORT, SIMULATE));
    public static final Setting<Path> REQUEST_LOG = declare(Setting.file("request-log").label("FILE")
            .help("Write one JSON line per answered request of every run here: its worker, arrival, TTFT, prompt and "
                    + "cached tokens, branch and, with the exact view modelled, what the engines held at its arrival.",
                    "the report's totals only").in(REPORT, SIMULATE));
    public static final Setting<Boolean> LIVE = declare(Setting.off("live")
            .help("Compare against live engines over HTTP (not supported yet).", "simulated engines: the only kind "
                    + "there is yet").in(REPORT, SIMULATE));

    /** Every setting, in the order declared (which is the help's order within a group). */
    public static final List<Setting<?>> ALL = List.copyOf(DECLARED);

    private Settings() {
    }

    /** The settings of one scope, in the table's order. */
    public static List<Setting<?>> in(Scope scope) {
        return ALL.stream().filter(setting -> setting.appliesTo(scope)).toList();
    }

    /** A pod label selector item: {@code key=value}, one '=' with text on both sides. */
    private static String labelProblem(String item) {
        int eq = item.indexOf('=');
        return eq <= 0 || eq == item.length() - 1 || item.indexOf('=', eq + 1) >= 0
                ? "'" + item + "' is not key=value" : null;
    }

    private static <T> Setting<T> declare(Setting.Builder<T> declared) {
        Setting<T> setting = declared.build(DECLARED.size());
        DECLARED.add(setting);
        return setting;
    }

    /**
     * A reference flag of a feature Homing has not built: accepted at its default, which asks for nothing Homing
     * lacks, and refused with any other value. Nothing reads it, so it has no constant; building the feature is
     * giving it one, with its row.
     */
    private static void notYet(Group group, Setting.Builder<?> declared, String help) {
        notYet(group, declared, help, null);
    }

    /** A history store's flags: its texts (where and who), then its pool's numbers, none with a default. */
    private static void storage(String store, String prefix, List<String> texts, List<String> numbers) {
        texts.forEach(name -> notYet(STORAGE, Setting.of(prefix + name, TEXT, null),
                store + " history storage: " + name.replace('-', ' ') + "."));
        numbers.forEach(name -> notYet(STORAGE, Setting.of(prefix + name, INTEGER, null),
                store + " history storage: " + name.replace('-', ' ') + "."));
    }

    /** As {@link #notYet(Group, Setting.Builder, String)}, with notes for its row. */
    private static void notYet(Group group, Setting.Builder<?> declared, String help, String notes) {
        declare(declared.help(help, REFERENCE + "; at it the flag asks for nothing Homing lacks")
                .gateway(group, Compatibility.notYet(notes)));
    }

    /** The pod labels of one role of prefill/decode mode's discovery. */
    private static Setting.Builder<List<String>> roleSelector(String role) {
        return Setting.of(role + "-selector", listOf(TEXT), List.<String>of()).label("k=v").arity("1..*")
                .check(each(Settings::labelProblem))
                .help("With --pd-disaggregation: pods carrying every one of these labels are " + role + " workers.",
                        REFERENCE)
                .gateway(DISCOVERY, same("With `--pd-disaggregation`: pods carrying every one of these labels are "
                        + role + " workers (`--selector` is for regular workers)"));
    }

    /** A limit on a client connection, in seconds (a Homing addition; nginx has the same three). */
    private static Setting.Builder<Long> clientTimeout(String name, long seconds, String help, String why,
                                                       String row) {
        return Setting.of(name, LONG, seconds).check(above(0)).help(help + " (Homing).", why)
                .gateway(SERVER, homing(row));
    }

    /** A time of Kubernetes discovery, in seconds (a Homing addition). */
    private static Setting.Builder<Long> discoverySeconds(String name, long seconds, Check<Long> check, String help,
                                                          String why, String row) {
        return Setting.of(name, LONG, seconds).check(check).help(help + " (Homing).", why)
                .gateway(DISCOVERY, homing(row));
    }

    /** A setting of the reference's policies, the gateway's and the simulator's, at the reference's default. */
    private static <T> Setting.Builder<T> policy(Setting.Builder<T> declared, String help, Compatibility row) {
        return declared.help(help, REFERENCE).gateway(ROUTING_POLICY, row).alsoIn(SIMULATE);
    }

    /**
     * A load_aware_affinity setting (a Homing addition, gateway and simulator alike).
     *
     * @param row the compatibility notes; null: the help text
     */
    private static <T> Setting.Builder<T> affinity(Setting.Builder<T> declared, String help, String why, String row) {
        return declared.help("load_aware_affinity: " + help + " (Homing).", why)
                .gateway(AFFINITY, homing(row != null ? row : help)).alsoIn(SIMULATE);
    }

    /** A setting of the engine model: the simulated engine's, and each of the simulator's engines. */
    private static <T> Setting.Builder<T> engine(Setting.Builder<T> declared, String help, String why) {
        return declared.help(help, why).in(ENGINE_MODEL, SIM_ENGINE, SIMULATE);
    }

    /** A setting of the prefill/decode roles or data parallelism: the simulated engine's, and the simulator's. */
    private static <T> Setting.Builder<T> engineRole(Setting.Builder<T> declared, String help, String why) {
        return declared.help(help, why).in(ENGINE_ROLES, SIM_ENGINE, SIMULATE);
    }

    /** A fault the simulated engine injects for tests: off by default. */
    private static <T> Setting.Builder<T> fault(Setting.Builder<T> declared, String help) {
        return declared.help(help, "off: faults are for tests that ask for them").in(FAULTS, SIM_ENGINE);
    }

    /** A shape of the generated-shared-prefix workload: a count of at least one. */
    private static Setting.Builder<Integer> sharedPrefix(String name, int defaultValue, String what) {
        return Setting.of(name, INTEGER, defaultValue).check(positive())
                .help("generated-shared-prefix: " + what + ".", SERVING_BENCHMARK).in(Group.WORKLOAD, SIMULATE);
    }

    private static String unknownPolicy(String name) {
        return PolicyFactory.NAMES.contains(name) ? null
                : "unknown policy '" + name + "'; valid policies: " + String.join(", ", PolicyFactory.NAMES);
    }
}
