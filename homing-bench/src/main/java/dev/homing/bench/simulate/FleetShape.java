package dev.homing.bench.simulate;

import dev.homing.sim.model.DisaggregationConfig;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How the simulated engines stand behind the gateway. The number of workers of a regular fleet, or of servers of a
 * data-parallel one, is {@link SimulationSettings#workers()}.
 *
 * @param kind           the layout
 * @param prefillWorkers prefill engines of a disaggregated fleet
 * @param decodeWorkers  decode engines of a disaggregated fleet
 * @param dpSize         data-parallel ranks a server runs (each an engine of its own) in the two data-parallel
 *                       layouts
 * @param disaggregation the roles' timeout and the decode engines' KV link
 */
public record FleetShape(Kind kind, int prefillWorkers, int decodeWorkers, int dpSize,
                         DisaggregationConfig disaggregation) {

    /** The layouts {@code --fleet} names. */
    public enum Kind {
        /** {@code --workers} engines; the policy places on each. */
        REGULAR("regular"),
        /** Prefill and decode engines; the policy places the prefill leg, decode_balance the decode leg. */
        DISAGGREGATED("pd"),
        /** {@code --workers} servers of {@code --dp-size} ranks; the policy places on servers, each round-robins. */
        DATA_PARALLEL("dp"),
        /** The same ranks, each a worker of its own: the policy places on ranks, as the gateway's --dp-aware. */
        RANK_AWARE("dp-aware");

        /** Every flag value, in order. */
        public static final List<String> FLAGS = Arrays.stream(values()).map(Kind::flag).toList();

        private final String flag;

        Kind(String flag) {
            this.flag = flag;
        }

        public String flag() {
            return flag;
        }

        /** @throws IllegalArgumentException naming the valid layouts */
        public static Kind parse(String flag) {
            for (Kind kind : values()) {
                if (kind.flag.equals(flag.trim().toLowerCase(Locale.ROOT))) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("unknown fleet '" + flag + "'; valid fleets: "
                    + String.join(", ", FLAGS));
        }
    }

    /** A regular fleet (the other sizes at their smallest). */
    public static final FleetShape REGULAR = new FleetShape(Kind.REGULAR, 1, 1, 1, DisaggregationConfig.DEFAULTS);

    public FleetShape {
        if (prefillWorkers <= 0 || decodeWorkers <= 0 || dpSize <= 0) {
            throw new IllegalArgumentException("every fleet size must be positive");
        }
    }

    public FleetShape withKind(Kind newKind) {
        return new FleetShape(newKind, prefillWorkers, decodeWorkers, dpSize, disaggregation);
    }
}
