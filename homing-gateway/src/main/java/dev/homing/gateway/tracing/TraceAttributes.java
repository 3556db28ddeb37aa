package dev.homing.gateway.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The names of the attributes Homing's spans carry: OpenTelemetry's semantic conventions where they have one (HTTP,
 * the server addressed, the model asked for), {@code homing.*} for the routing decision.
 */
final class TraceAttributes {

    static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");
    static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
    static final AttributeKey<String> MODEL = AttributeKey.stringKey("gen_ai.request.model");

    static final AttributeKey<String> REQUEST_ID = AttributeKey.stringKey("homing.request_id");
    static final AttributeKey<String> POLICY = AttributeKey.stringKey("homing.policy");
    static final AttributeKey<String> BRANCH = AttributeKey.stringKey("homing.branch");
    /** The share of the routing text the chosen worker's tree matched; absent when the request had none. */
    static final AttributeKey<Double> MATCH_RATIO = AttributeKey.doubleKey("homing.match_ratio");
    /** The worker chosen; on the request's span, the one its last attempt went to. */
    static final AttributeKey<String> WORKER = AttributeKey.stringKey("homing.worker");
    /** How long the request waited for an earlier request's prefill on its worker before it was sent. */
    static final AttributeKey<Double> HELD_MS = AttributeKey.doubleKey("homing.held_ms");
    static final AttributeKey<Long> RETRIES = AttributeKey.longKey("homing.retries");
    /** The attempt's end as the circuit breaker saw it ({@code UpstreamOutcome}), or {@code dropped}. */
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("homing.outcome");
    static final AttributeKey<Long> PROMPT_TOKENS = AttributeKey.longKey("homing.prompt_tokens");
    static final AttributeKey<Long> CACHED_TOKENS = AttributeKey.longKey("homing.cached_tokens");

    private TraceAttributes() {
    }
}
