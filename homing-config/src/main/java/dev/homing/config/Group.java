package dev.homing.config;

/**
 * The help sections, in the order {@code --help} lists them; a command shows the groups its settings fall in. The
 * gateway's follow the reference's grouping. A group's title is also the first column of docs/COMPATIBILITY.md.
 */
public enum Group {
    /** Listed with {@code --help} and {@code --version}, under no heading. */
    CONFIGURATION("Configuration", Kind.UNTITLED),
    SERVER("Server"),
    WORKLOAD("Workload"),
    FLEET("Fleet"),
    ENGINE_MODEL("Engine model"),
    FAULTS("Faults and test aids"),
    WORKERS("Workers"),
    ROUTING_POLICY("Routing policy"),
    AFFINITY("load_aware_affinity", Kind.HOMING),
    SIMULATED_GATEWAY("Simulated gateway"),
    PD("Prefill/decode disaggregation", Kind.NOT_YET),
    DISCOVERY("Kubernetes service discovery", Kind.NOT_YET),
    LOGGING("Logging"),
    METRICS("Metrics"),
    REQUESTS("Requests"),
    ADMISSION("Admission control and rate limiting"),
    RETRIES("Retries"),
    CIRCUIT_BREAKER("Circuit breaker"),
    HEALTH("Health checks"),
    TOKENIZER("Tokenizer, gRPC mode", Kind.NOT_YET),
    PARSERS("Parsers", Kind.NOT_YET),
    BACKEND("Backend"),
    STORAGE("History storage", Kind.NOT_YET),
    TLS("TLS"),
    TRACING("Tracing", Kind.NOT_YET),
    AUTHENTICATION("Authentication"),
    MESH("HA mesh", Kind.NOT_YET),
    REPORT("Report");

    /** What the heading says besides the title. */
    private enum Kind { PLAIN, UNTITLED, HOMING, NOT_YET }

    private final String title;
    private final Kind kind;

    Group(String title) {
        this(title, Kind.PLAIN);
    }

    Group(String title, Kind kind) {
        this.title = title;
        this.kind = kind;
    }

    public String title() {
        return title;
    }

    /** The heading in {@code --help}, or null for the options listed under no heading. */
    public String heading() {
        return switch (kind) {
            case UNTITLED -> null;
            case PLAIN -> title;
            case HOMING -> title + " (Homing)";
            case NOT_YET -> title + " (not supported yet)";
        };
    }
}
