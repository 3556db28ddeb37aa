package dev.homing.core.policy;

/** Which view judged a decision's chosen worker: its engine's own KV events, or the prefix tree's guess. */
public enum RoutingView {
    /** The worker's events are trusted: judged by what its engine reported holding. */
    EXACT,
    /** Judged by the prefix tree (no exact view, or the worker's events are not trusted now). */
    APPROXIMATE;

    /** The name on the wire and in metrics: {@code exact} or {@code approximate}. */
    public String label() {
        return this == EXACT ? "exact" : "approximate";
    }
}
