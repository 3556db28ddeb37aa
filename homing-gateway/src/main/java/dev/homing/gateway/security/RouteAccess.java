package dev.homing.gateway.security;

import dev.homing.gateway.proxy.InferenceRoute;

/**
 * Who may call which route. Four kinds of path:
 * <ul>
 *   <li>public (probes and discovery: {@code /health}, {@code /liveness}, {@code /readiness}, {@code /health_generate},
 *       {@code /v1/models} and {@code /v1/models/{model}}, {@code /get_model_info}, {@code /get_server_info}): always
 *       allowed, as in the reference;
 *   <li>inference (the POST routes of {@link InferenceRoute}): need {@code --api-key} as a Bearer token when it is
 *       set, else open;
 *   <li>admin ({@code /workers}, {@code /workers/{id}}, {@code /flush_cache}, {@code /get_loads},
 *       {@code /engine_metrics}, {@code /kv_events}): need the admin credential, which is {@code --admin-api-key}
 *       when set, else {@code --api-key} (the reference's behaviour).
 *   <li>unrouted (any other path): allowed through, so the router answers its 404 or 405; nothing is behind it.
 * </ul>
 * A new admin route must be added to {@link #kindOf}; {@code RouteAccessTest} lists the admin paths.
 *
 * <p>Homing additions: with neither key set, admin routes are refused (403 {@code admin_disabled}) instead of open, since
 * an open {@code POST /workers} lets anyone who reaches the port point the gateway at any address; an operator who
 * wants them open anyway says so with {@code --allow-unauthenticated-admin}. {@code /engine_metrics} moves from public
 * to admin: it reveals every worker's address and load.
 *
 * <p>Immutable and thread-safe; keys are held only as {@link ApiKeyCheck}s and never printed.
 */
public final class RouteAccess {

    /** What a route needs. */
    public enum Kind { PUBLIC, INFERENCE, ADMIN, UNROUTED }

    /** The verdict for one request. */
    public sealed interface Verdict {
    }

    public record Allowed() implements Verdict {
    }

    /**
     * Refused: answer {@code status} with {@code code} in the OpenAI error shape (401 needs a
     * {@code WWW-Authenticate: Bearer} header too).
     */
    public record Refused(int status, String code, String message) implements Verdict {
    }

    private static final Allowed ALLOWED = new Allowed();

    private final ApiKeyCheck inferenceKey;
    private final ApiKeyCheck adminKey;
    private final boolean allowUnauthenticatedAdmin;

    /**
     * @param apiKey                    {@code --api-key}, or null
     * @param adminApiKey               {@code --admin-api-key} (Homing), or null to use {@code apiKey}
     * @param allowUnauthenticatedAdmin {@code --allow-unauthenticated-admin} (Homing): admin routes open with no key
     */
    public RouteAccess(String apiKey, String adminApiKey, boolean allowUnauthenticatedAdmin) {
        this.inferenceKey = apiKey == null ? null : ApiKeyCheck.of(apiKey);
        this.adminKey = adminApiKey != null ? ApiKeyCheck.of(adminApiKey) : inferenceKey;
        this.allowUnauthenticatedAdmin = allowUnauthenticatedAdmin;
    }

    public static Kind kindOf(String path) {
        if (InferenceRoute.of(path) != null) {
            return Kind.INFERENCE;
        }
        if (path.startsWith("/workers/")) {
            return Kind.ADMIN;
        }
        if (path.startsWith("/v1/models/")) {
            return Kind.PUBLIC;
        }
        return switch (path) {
            case "/health", "/liveness", "/readiness", "/health_generate", "/v1/models", "/get_model_info",
                 "/get_server_info" -> Kind.PUBLIC;
            case "/workers", "/flush_cache", "/get_loads", "/engine_metrics", "/kv_events" -> Kind.ADMIN;
            default -> Kind.UNROUTED;
        };
    }

    /** The verdict for a request to {@code path} carrying {@code authorizationHeader} (null when absent). */
    public Verdict check(String path, String authorizationHeader) {
        return switch (kindOf(path)) {
            case PUBLIC, UNROUTED -> ALLOWED;
            case INFERENCE -> inferenceKey == null || inferenceKey.matches(authorizationHeader) ? ALLOWED
                    : new Refused(401, "invalid_api_key", "Missing or wrong API key");
            case ADMIN -> admin(authorizationHeader);
        };
    }

    private Verdict admin(String authorizationHeader) {
        if (adminKey == null) {
            return allowUnauthenticatedAdmin ? ALLOWED : new Refused(403, "admin_disabled",
                    "Admin routes are disabled: start the gateway with --admin-api-key (or --api-key), or with "
                            + "--allow-unauthenticated-admin on a trusted network");
        }
        return adminKey.matches(authorizationHeader) ? ALLOWED
                : new Refused(401, "invalid_admin_key", "Missing or wrong admin API key");
    }

    @Override
    public String toString() {
        return "RouteAccess[inferenceKey=" + (inferenceKey != null) + ", adminKey=" + (adminKey != null)
                + ", allowUnauthenticatedAdmin=" + allowUnauthenticatedAdmin + "]";
    }
}
