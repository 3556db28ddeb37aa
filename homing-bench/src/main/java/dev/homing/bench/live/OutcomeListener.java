package dev.homing.bench.live;

/**
 * Told of every request a {@link WorkloadDriver} sends and of how each ended: {@link ResultAggregator} adds them
 * up; a test or another measurement may look at single outcomes. Called on the driver's event loop: keep it cheap.
 */
public interface OutcomeListener {

    void requestSent();

    void record(RequestOutcome outcome);
}
