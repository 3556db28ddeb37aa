package dev.homing.gateway.kvevents;

import dev.homing.core.kv.TokenAgreement;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Comparator;

/**
 * {@code GET /kv_events}: each subscribed worker's state, reason, endpoints, last sequence number and how its engine's
 * prompt token counts compared with the gateway's, as JSON.
 */
public final class KvEventsReport {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private KvEventsReport() {
    }

    /** The report; {@code subscribers} null when {@code --kv-events off}. */
    public static String of(KvEventSubscribers subscribers) {
        ObjectNode root = JSON.createObjectNode();
        root.put("enabled", subscribers != null);
        ArrayNode workers = root.putArray("workers");
        if (subscribers != null) {
            subscribers.statuses().stream().sorted(Comparator.comparing(WorkerStream.Status::worker)).forEach(s -> {
                ObjectNode w = workers.addObject();
                w.put("worker", s.worker());
                w.put("model", s.model());
                w.put("state", KvEventMetrics.label(s.state()));
                w.put("reason", s.reason());
                w.put("endpoint", s.endpoint());
                w.put("replay_endpoint", s.replay());
                w.put("last_sequence", s.lastSequence());
                if (s.tokenChecks() != null) {
                    ObjectNode checks = w.putObject("prompt_token_checks");
                    checks.put("agreed", s.tokenChecks().agreed());
                    checks.put("differed", s.tokenChecks().differed());
                    TokenAgreement.Difference last = s.tokenChecks().lastDifference();
                    if (last != null) {
                        checks.putObject("last_difference").put("gateway_tokens", last.gatewayTokens())
                                .put("engine_tokens", last.engineTokens());
                    }
                }
            });
        }
        return JSON.writeValueAsString(root);
    }
}
