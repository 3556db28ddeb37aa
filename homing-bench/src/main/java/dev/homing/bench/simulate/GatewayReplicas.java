package dev.homing.bench.simulate;

/**
 * How many gateway replicas a simulation runs in front of its one fleet of engines, how an L4 balancer spreads the
 * requests over them, and whether they keep each other in step through a modelled bus.
 *
 * @param gateways      replicas; 1 is the single gateway (nothing below applies)
 * @param randomSplit   each request goes to a replica drawn at random (seeded), else to the next in turn
 * @param busDelayNanos simulated time between a replica publishing an event and the others applying it
 * @param sync          whether the replicas publish their decisions and loads to each other (else independent)
 * @param blockChars    characters per block of the hashes that name prefixes on the bus
 * @param lateJoinNanos when above 0, the last replica joins at this simulated time: it hears nothing and takes no
 *                      request before, then takes the first replica's snapshot (with sync) and its share
 */
public record GatewayReplicas(int gateways, boolean randomSplit, long busDelayNanos, boolean sync, int blockChars,
                              long lateJoinNanos) {

    /** One gateway. */
    public static final GatewayReplicas ONE = new GatewayReplicas(1, false, 0, false, 256, 0);

    public GatewayReplicas {
        if (gateways < 1 || busDelayNanos < 0 || blockChars < 1 || lateJoinNanos < 0) {
            throw new IllegalArgumentException("at least one gateway, a bus delay not negative and blocks of at least "
                    + "one character are needed");
        }
    }

    /** Whether more than one replica runs with sync on. */
    boolean synced() {
        return gateways > 1 && sync;
    }

    GatewayReplicas withGateways(int n, boolean withSync) {
        return new GatewayReplicas(n, randomSplit, busDelayNanos, withSync, blockChars, n > 1 ? lateJoinNanos : 0);
    }

    /** Whether the last replica joins late. */
    boolean lateJoin() {
        return gateways > 1 && lateJoinNanos > 0;
    }

    /** What a run's label adds to its policy name: nothing for one gateway. */
    String label() {
        return gateways == 1 ? "" : " x" + gateways + (sync ? " sync" : " no sync");
    }
}
