package dev.homing.bench.live;

/**
 * What a {@link WorkloadDriver} sends and how long: the bodies it writes, the pace it starts conversations at, and
 * the caps it stops at.
 *
 * @param encoder how to write request bodies
 * @param pacing  open or closed loop
 * @param caps    request and duration caps
 */
public record DrivePlan(RequestEncoder encoder, Pacing pacing, RunCaps caps) {
}
