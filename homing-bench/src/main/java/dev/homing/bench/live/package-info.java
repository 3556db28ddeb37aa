/**
 * The live load tool behind {@code homing bench}: drives a real server over HTTP with a
 * {@link dev.homing.bench.workload.Workload} and measures it.
 *
 * <p>From the bottom up: {@link dev.homing.bench.live.LoadClient} sends one request and reports a
 * {@link dev.homing.bench.live.RequestOutcome} (time to first token, gaps, usage, status);
 * {@link dev.homing.bench.live.WorkloadDriver} paces conversations open or closed loop within
 * {@link dev.homing.bench.live.RunCaps} and tells an {@link dev.homing.bench.live.OutcomeListener} of each request;
 * {@link dev.homing.bench.live.ResultAggregator} adds outcomes into HdrHistograms and counters;
 * {@link dev.homing.bench.live.LoadRun} reads the engines' counters around a run and returns a
 * {@link dev.homing.bench.live.BenchResult}. The client and driver are confined to one Vert.x event loop; the
 * aggregator is thread-safe, so a heavier load can run one client and driver per event loop into one aggregator.
 */
package dev.homing.bench.live;
