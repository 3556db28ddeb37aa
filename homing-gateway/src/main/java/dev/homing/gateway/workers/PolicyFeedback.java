package dev.homing.gateway.workers;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;

/**
 * What a policy is told about a request it placed: its first token, then how it ended and what the engine reported
 * it had cached. Carried by the request's {@link InFlightSlot}, whose exactly-once release makes the completion
 * report exactly-once too.
 */
record PolicyFeedback(RoutingPolicy policy, RoutingRequest request, Decision decision) {

    /** For slots taken outside a policy decision (tests): tells nobody. */
    static final PolicyFeedback NONE = new PolicyFeedback(null, null, null);

    void firstToken(String workerId) {
        if (policy != null) {
            policy.onFirstToken(workerId, decision);
        }
    }

    void completed(String workerId, EngineReport report) {
        if (policy != null) {
            policy.onCompleted(workerId, request, decision, report);
        }
    }
}
