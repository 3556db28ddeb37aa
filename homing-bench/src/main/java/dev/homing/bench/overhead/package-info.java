/**
 * The client side of the proxy-overhead benchmark ({@code bench/proxy-overhead.sh}): the same load sent through a
 * proxy or straight to the engines, so that the difference is the proxy's cost.
 *
 * <p>{@link dev.homing.bench.overhead.RoundRobinLoad} reuses the live load tool's pieces (one
 * {@link dev.homing.bench.live.LoadClient} and {@link dev.homing.bench.live.WorkloadDriver} per URL into one
 * {@link dev.homing.bench.live.ResultAggregator}) and adds what a side-by-side comparison needs: client-side round
 * robin over several engines, and a warm-up in the same JVM before the measured part.
 */
package dev.homing.bench.overhead;
