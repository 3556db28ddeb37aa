package dev.homing.config;

/**
 * The help sections, in the order {@code --help} lists them; a command shows the groups its settings fall in. The
 * gateway's follow the reference's grouping. A group's title is also the first column of docs/COMPATIBILITY.md.
 */
public enum Group {
    // Each command shows its own, in this order; homing launch's follow the reference's.
    /** Listed with {@code --help} and {@code --version}, under no heading. */
    CONFIGURATION("Configuration"), SERVER("Server"),
    WORKLOAD("Workload"), FLEET("Fleet"), ENGINE_MODEL("Engine model"),
    ENGINE_ROLES("Prefill/decode and data parallelism"), FAULTS("Faults and test aids"),
    WORKERS("Workers"), ROUTING_POLICY("Routing policy"), AFFINITY("load_aware_affinity (Homing)"),
    SIMULATED_GATEWAY("Simulated gateway"),
    PD("Prefill/decode disaggregation"), DISCOVERY("Kubernetes service discovery"),
    LOGGING("Logging"), METRICS("Metrics"), REQUESTS("Requests"), ADMISSION("Admission control and rate limiting"),
    RETRIES("Retries"), CIRCUIT_BREAKER("Circuit breaker"), HEALTH("Health checks"),
    TOKENIZER("Tokenizer"), PARSERS("Parsers" + Group.NOT_YET), BACKEND("Backend"),
    STORAGE("History storage" + Group.NOT_YET), TLS("TLS"), TRACING("Tracing"),
    AUTHENTICATION("Authentication"), MESH("Replicas (HA mesh)"),
    KV_EVENTS("Engine KV events (Homing)"),
    REPORT("Report");

    /** What the heading of a group of flags Homing has not built says after its title. */
    private static final String NOT_YET = " (not supported yet)";

    private final String heading;

    Group(String heading) {
        this.heading = heading;
    }

    /** The title without what the heading adds: "HA mesh", "load_aware_affinity". */
    public String title() {
        return heading.replaceFirst(" \\((Homing|not supported yet)\\)$", "");
    }

    /** The heading in {@code --help}, or null for the options listed under no heading. */
    public String heading() {
        return this == CONFIGURATION ? null : heading;
    }
}
