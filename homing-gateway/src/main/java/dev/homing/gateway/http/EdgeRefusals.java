package dev.homing.gateway.http;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the listener's edge answered before any route saw the request (a head the decoder refused: 400, 414,
 * 431; a client too slow with its head or body: 408), by error code. Those answers are written below Vert.x, so the
 * per-request access log and metrics never see them; the metrics read this count instead. Thread-safe: every event
 * loop writes to it.
 */
public final class EdgeRefusals {

    private final ConcurrentHashMap<String, LongAdder> byCode = new ConcurrentHashMap<>();

    public void refused(String code) {
        byCode.computeIfAbsent(code, c -> new LongAdder()).increment();
    }

    /** The count of each error code refused so far, in code order. */
    public Map<String, Long> counts() {
        Map<String, Long> counts = new TreeMap<>();
        byCode.forEach((code, n) -> counts.put(code, n.sum()));
        return counts;
    }
}
