package dev.homing.bench.simulate;

import dev.homing.bench.simulate.ArrivalQueue.TurnArrival;
import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.RoutingRequest;

/**
 * One turn's request from its placement by the routing policy to its answer: what the simulated gateway knows of it.
 * Times count from its arrival at the gateway. Not thread-safe, like the simulation.
 */
final class TurnRequest {
    final TurnArrival arrival;
    final RoutingRequest routing;
    final int maxNewTokens;
    /** The worker the routing policy chose, and its placement there. */
    final SimulatedWorker worker;
    final Placement placement;
    /** The policy's branch label for the placement. */
    final String branch;
    final long arrivedNanos;
    /** The gateway replica that placed it. */
    final int gateway;
    /** The prompt: until sent, and after only for a conversation with a next turn (its answer text needs it). */
    private int[] promptTokens;
    /** When its latest output token came; its arrival until the first. */
    long lastTokenNanos;
    /** With the exact view modelled: the cached tokens the exact view and the tree predicted on its worker. */
    int exactPrediction;
    int treePrediction;
    /** With the exact view modelled: the longest prefix of the prompt any engine held at its arrival. */
    int heldTokens;
    /** From arrival to its first token (its end, when it wrote none); set when it comes. */
    long ttftNanos;

    /** A turn of {@code arrival}, placed by the policy as {@code placed} (found), at {@code arrivedNanos}. */
    TurnRequest(TurnArrival arrival, RoutingRequest routing, int[] promptTokens,
                Placer.Placed<SimulatedGateway.Target, SimulatedGateway.Target> placed, long arrivedNanos,
                int gateway) {
        this.arrival = arrival;
        this.routing = routing;
        this.promptTokens = promptTokens;
        this.maxNewTokens = arrival.conversation().turns().get(arrival.turn()).maxOutputTokens();
        this.worker = placed.worker().worker();
        this.placement = placed.placement();
        this.branch = placed.decision().branch();
        this.arrivedNanos = arrivedNanos;
        this.gateway = gateway;
        this.lastTokenNanos = arrivedNanos;
    }

    int[] promptTokens() {
        return promptTokens;
    }

    /** It has been sent: only a conversation with a next turn keeps the prompt. */
    void sent() {
        if (!arrival.hasNextTurn()) {
            promptTokens = null;
        }
    }
}
