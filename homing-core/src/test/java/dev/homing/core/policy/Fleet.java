package dev.homing.core.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/** Test fixtures: worker lists and a clock the test moves by hand. */
public final class Fleet {

    private Fleet() {
    }

    /** {@code n} available, idle workers named {@code w0 .. w(n-1)}. */
    public static List<WorkerView> idle(int n) {
        List<WorkerView> workers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            workers.add(WorkerView.available("w" + i, 0));
        }
        return workers;
    }

    /** Available workers {@code w0 ..} with these in-flight counts. */
    public static List<WorkerView> withInFlight(int... inFlight) {
        List<WorkerView> workers = new ArrayList<>(inFlight.length);
        for (int i = 0; i < inFlight.length; i++) {
            workers.add(WorkerView.available("w" + i, inFlight[i]));
        }
        return workers;
    }

    /** A copy of {@code workers} with the worker at {@code index} unavailable. */
    public static List<WorkerView> withUnavailable(List<WorkerView> workers, int... indexes) {
        List<WorkerView> copy = new ArrayList<>(workers);
        for (int index : indexes) {
            WorkerView worker = copy.get(index);
            copy.set(index, new WorkerView(worker.id(), false, worker.inFlight(), worker.reportedLoad()));
        }
        return copy;
    }

    public static PolicyConfig config() {
        return PolicyConfig.DEFAULTS.withSeed(42);
    }

    /** A nanosecond clock that stands still until the test advances it. */
    public static final class ManualClock implements LongSupplier {
        private long nanos = 1_000_000_000L;

        @Override
        public long getAsLong() {
            return nanos;
        }

        public void advanceSeconds(long seconds) {
            nanos += seconds * 1_000_000_000L;
        }

        public void advanceNanos(long delta) {
            nanos += delta;
        }
    }
}
