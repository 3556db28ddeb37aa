package dev.homing.gateway.status;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Each worker's predicted and realised cache hit rate over the last minutes, for the status page's charts. Every
 * {@link #SAMPLE_MILLIS} it reads the counters {@code /metrics} exposes (routing-text characters placed and those the
 * policy believed held; prompt tokens and those the engine reported cached) and keeps their totals, at most
 * {@link #SAMPLES} a worker, so its memory is bounded by the registry's bound on workers. A chart's point is the rate
 * between two samples; the last one runs from the latest sample to now. Reading the counters rather than counting on
 * the way costs the proxy path nothing, and the page shows what a dashboard computes from the same series.
 *
 * <p>Thread-safe: the sampling timer and the page's requests synchronise on the history.
 */
final class HitRateHistory {

    /** Ten-second points: fine enough to see a burst, few enough to draw in a small chart. */
    static final long SAMPLE_MILLIS = 10_000;
    /** Ten minutes of samples; a worker's ring is SAMPLES * 4 longs. */
    static final int SAMPLES = 60;
    /** The key of the whole fleet's totals: no worker URL is empty. */
    static final String FLEET = "";

    private static final String ROUTED = "homing_routed_chars";
    private static final String PREDICTED = "homing_predicted_cached_chars";
    private static final String PROMPT = "homing_prompt_tokens";
    private static final String CACHED = "homing_cached_tokens";
    private static final List<String> COLUMNS = List.of(ROUTED, PREDICTED, PROMPT, CACHED);
    private static final Set<String> SCRAPED = Set.of(ROUTED, PREDICTED, PROMPT, CACHED, ROUTED + "_total",
            PREDICTED + "_total", PROMPT + "_total", CACHED + "_total");

    /** A hit rate over one interval; a rate is null when nothing was placed (or reported) in it. */
    record Point(long endMillis, Double predicted, Double realised) {
    }

    private final PrometheusRegistry registry;
    /** Guarded by this. */
    private final Map<String, Ring> byWorker = new HashMap<>();

    HitRateHistory(PrometheusRegistry registry) {
        this.registry = registry;
    }

    /** Takes a sample of {@code workers} (and the fleet); forgets workers no longer registered. */
    synchronized void sample(Set<String> workers, long nowMillis) {
        Map<String, long[]> totals = read();
        byWorker.keySet().removeIf(worker -> !worker.equals(FLEET) && !workers.contains(worker));
        for (String worker : workers) {
            byWorker.computeIfAbsent(worker, w -> new Ring()).add(nowMillis, totals.get(worker));
        }
        byWorker.computeIfAbsent(FLEET, w -> new Ring()).add(nowMillis, totals.get(FLEET));
    }

    /** The points of {@code worker} ({@link #FLEET}: the fleet), oldest first, the last up to now. */
    synchronized List<Point> points(String worker, long nowMillis, Map<String, long[]> now) {
        Ring ring = byWorker.get(worker);
        return ring == null ? List.of() : ring.points(nowMillis, now.get(worker));
    }

    /** The rates over the whole window, from the oldest sample kept to now. */
    synchronized Point window(String worker, long nowMillis, Map<String, long[]> now) {
        Ring ring = byWorker.get(worker);
        return ring == null ? new Point(nowMillis, null, null) : ring.window(nowMillis, now.get(worker));
    }

    /** The counters' totals now, by worker URL and for {@link #FLEET}, summed over models. */
    Map<String, long[]> read() {
        Map<String, long[]> totals = new HashMap<>();
        totals.put(FLEET, new long[COLUMNS.size()]);
        for (MetricSnapshot snapshot : registry.scrape(SCRAPED::contains)) {
            int column = COLUMNS.indexOf(snapshot.getMetadata().getName().replaceFirst("_total$", ""));
            if (column < 0 || !(snapshot instanceof CounterSnapshot counter)) {
                continue;
            }
            for (CounterSnapshot.CounterDataPointSnapshot point : counter.getDataPoints()) {
                String worker = point.getLabels().get("worker");
                if (worker != null) {
                    totals.computeIfAbsent(worker, w -> new long[COLUMNS.size()])[column] += (long) point.getValue();
                    totals.get(FLEET)[column] += (long) point.getValue();
                }
            }
        }
        return totals;
    }

    private static Point rate(long endMillis, long[] from, long[] to) {
        return new Point(endMillis, ratio(to[1] - from[1], to[0] - from[0]), ratio(to[3] - from[3], to[2] - from[2]));
    }

    private static Double ratio(long part, long whole) {
        return whole <= 0 ? null : Math.min(1.0, Math.max(0.0, (double) part / whole));
    }

    /** One worker's samples: a circular buffer of their times and totals, oldest overwritten first. */
    private static final class Ring {
        private final long[] times = new long[SAMPLES];
        private final long[][] totals = new long[SAMPLES][];
        private int next;
        private int size;

        void add(long millis, long[] sample) {
            times[next] = millis;
            totals[next] = sample == null ? new long[COLUMNS.size()] : sample;
            next = (next + 1) % SAMPLES;
            size = Math.min(size + 1, SAMPLES);
        }

        private int index(int age) {
            return Math.floorMod(next - size + age, SAMPLES);
        }

        List<Point> points(long nowMillis, long[] now) {
            List<Point> points = new ArrayList<>(size);
            for (int age = 1; age < size; age++) {
                points.add(rate(times[index(age)], totals[index(age - 1)], totals[index(age)]));
            }
            if (size > 0 && now != null) {
                points.add(rate(nowMillis, totals[index(size - 1)], now));
            }
            return points;
        }

        Point window(long nowMillis, long[] now) {
            return size == 0 || now == null ? new Point(nowMillis, null, null)
                    : rate(nowMillis, totals[index(0)], now);
        }
    }
}
