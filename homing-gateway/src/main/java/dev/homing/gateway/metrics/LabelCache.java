package dev.homing.gateway.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A labelled metric's data points, remembered by their label values. {@code labelValues(...)} of client_java builds
 * a varargs array and a list and hashes it on every call; a request records a dozen series, so the gateway asks this
 * cache instead: one map lookup per label, by strings whose hash is already cached, and no allocation once a series
 * exists. Holds as many series as the metric itself (the labels are the same), so it is bounded where the metric is.
 *
 * <p>Label values must not be null. Thread-safe.
 *
 * @param <D> the data point type ({@code CounterDataPoint}, {@code DistributionDataPoint})
 */
final class LabelCache<D> {

    private final Function<String[], D> lookup;
    /** Nested maps, one level per label; the last level maps to data points. */
    private final ConcurrentHashMap<String, Object> root = new ConcurrentHashMap<>();

    /** @param lookup the metric's data point for the cached label values (the metric's constant labels added) */
    LabelCache(Function<String[], D> lookup) {
        this.lookup = lookup;
    }

    @SuppressWarnings("unchecked")
    D get(String a) {
        Object point = root.get(a);
        return point != null ? (D) point : (D) root.computeIfAbsent(a, k -> lookup.apply(new String[] {a}));
    }

    @SuppressWarnings("unchecked")
    D get(String a, String b) {
        Object point = level(root, a).get(b);
        return point != null ? (D) point
                : (D) level(root, a).computeIfAbsent(b, k -> lookup.apply(new String[] {a, b}));
    }

    @SuppressWarnings("unchecked")
    D get(String a, String b, String c) {
        ConcurrentHashMap<String, Object> last = level(level(root, a), b);
        Object point = last.get(c);
        return point != null ? (D) point : (D) last.computeIfAbsent(c, k -> lookup.apply(new String[] {a, b, c}));
    }

    @SuppressWarnings("unchecked")
    private static ConcurrentHashMap<String, Object> level(ConcurrentHashMap<String, Object> map, String key) {
        Object next = map.get(key);
        return next != null ? (ConcurrentHashMap<String, Object>) next
                : (ConcurrentHashMap<String, Object>) map.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
    }
}
