package dev.homing.core.placement;

import dev.homing.core.policy.WorkerView;

/** One worker as the placement step sees it; the driver's own worker type implements it. */
public interface PlacementTarget {

    /** The driver's identity of the worker: what a request's set of workers to avoid holds. */
    String id();

    /** What a policy may know of the worker now; its {@code inFlight} is {@link InFlightCount#acrossReplicas()}. */
    WorkerView view();

    /** The requests placed on this worker and not yet ended. */
    InFlightCount inFlightCount();
}
