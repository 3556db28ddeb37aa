package dev.homing.bench.cli;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The workloads {@code --workload} names, for {@code homing bench} as for {@code homing simulate} and {@code compare}. */
enum WorkloadKind {
    MULTI_TURN("multi-turn"), GENERATED_SHARED_PREFIX("generated-shared-prefix"), MOONCAKE("mooncake"),
    AZURE("azure"), MTBENCH("mtbench");

    private final String flag;

    WorkloadKind(String flag) {
        this.flag = flag;
    }

    /** The value {@code --workload} takes for it, e.g. {@code multi-turn}. */
    @Override
    public String toString() {
        return flag;
    }

    /** Whether its requests come from a trace file that sets their arrival times. */
    boolean isTrace() {
        return this == MOONCAKE || this == AZURE;
    }

    /** Every workload's flag, for a message: {@code multi-turn, generated-shared-prefix, ...}. */
    static String flags() {
        return Arrays.stream(values()).map(WorkloadKind::toString).collect(Collectors.joining(", "));
    }

    /** The workload {@code flag} names exactly; each command says in its own words what is wrong with another. */
    static Optional<WorkloadKind> of(String flag) {
        for (WorkloadKind kind : values()) {
            if (kind.flag.equals(flag)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
