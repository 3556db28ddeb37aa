package dev.homing.bench.simulate;

import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.Workload;
import java.util.List;
import java.util.stream.Stream;

/** A workload spelled out conversation by conversation, for examples small enough to check by hand. */
record FixedWorkload(String name, List<Conversation> script) implements Workload {

    FixedWorkload {
        script = List.copyOf(script);
    }

    @Override
    public Stream<Conversation> conversations() {
        return script.stream();
    }
}
