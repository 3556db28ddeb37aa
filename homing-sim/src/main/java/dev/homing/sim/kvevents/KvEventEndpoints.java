package dev.homing.sim.kvevents;

/**
 * Where one rank's sockets listen, with the ports they bound.
 *
 * @param replay the replay socket's endpoint, or null without one
 */
public record KvEventEndpoints(int dpRank, ZmqEndpoint events, ZmqEndpoint replay) {
}
