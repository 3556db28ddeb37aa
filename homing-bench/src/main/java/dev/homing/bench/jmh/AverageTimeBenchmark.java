package dev.homing.bench.jmh;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run settings the per-call benchmarks share: the mean time of one call on one thread, three warm-up and five
 * measured iterations of a second, one fork. A subclass names its time unit and its fork's JVM flags, and restates an
 * annotation only where it needs other values: JMH takes each annotation from the nearest class up the hierarchy.
 */
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public abstract class AverageTimeBenchmark {
}
