package dev.homing.gateway.security;

import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.EdgeStage;
import dev.homing.gateway.http.RouteMatch;
import io.netty.handler.codec.http.HttpHeaderNames;

/**
 * Who may call a route. Every route of a listener's table ({@code Routes}) declares its {@link Kind}:
 * <ul>
 *   <li>public (probes and discovery): always allowed, as in the reference;
 *   <li>inference: needs {@code --api-key} as a Bearer token when it is set, else open;
 *   <li>admin: needs the admin credential, which is {@code --admin-api-key} when set, else {@code --api-key} (the
 *       reference's behaviour);
 *   <li>monitoring (Homing: {@code /status} on the metrics port): the admin credential when one is set, else open,
 *       like {@code /metrics}, which shows the same workers and loads.
 * </ul>
 * A path no route declares has nothing behind it: the table refuses it (404) after this check lets it by.
 *
 * <p>Homing additions: with neither key set, admin routes are refused (403 {@code admin_disabled}) instead of open, since
 * an open {@code POST /workers} lets anyone who reaches the port point the gateway at any address; an operator who
 * wants them open anyway says so with {@code --allow-unauthenticated-admin}. {@code /engine_metrics} moves from public
 * to admin: it reveals every worker's address and load.
 *
 * <p>Immutable and thread-safe; keys are held only as {@link ApiKeyCheck}s and never printed.
 */
public final class RouteAccess {

    /** What a route needs, from the least to the most guarded. */
    public enum Kind { PUBLIC, INFERENCE, MONITORING, ADMIN }

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

    /**
     * The edge stage: a request its route's kind refuses is answered 401 (with {@code WWW-Authenticate: Bearer}) or
     * 403. A path no route declares passes, to be refused by the table.
     */
    public EdgeStage stage() {
        return new EdgeStage("access", (request, match) -> refusal(match,
                request.getHeader(HttpHeaderNames.AUTHORIZATION)));
    }

    private EdgeStage.Refusal refusal(RouteMatch match, String authorizationHeader) {
        if (!match.declared() || !(check(match.access(), authorizationHeader) instanceof Refused refused)) {
            return null;
        }
        return request -> {
            if (refused.status() == 401) {
                request.response().putHeader("www-authenticate", "Bearer");
            }
            new ApiError(refused.status(), refused.code(), refused.message()).send(request.response());
        };
    }

    /** The verdict for a request to a route of {@code kind} carrying {@code authorizationHeader} (null: absent). */
    public Verdict check(Kind kind, String authorizationHeader) {
        return switch (kind) {
            case PUBLIC -> ALLOWED;
            case INFERENCE -> inferenceKey == null || inferenceKey.matches(authorizationHeader) ? ALLOWED
                    : new Refused(401, "invalid_api_key", "Missing or wrong API key");
            case MONITORING -> adminKey == null ? ALLOWED : admin(authorizationHeader);
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
