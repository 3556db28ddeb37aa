package dev.homing.gateway.workers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registered workers that cannot take a request now, and why: those still pending (being probed) and those
 * active but unhealthy, with the reason their last probe or health check failed. Only the first few are kept, with
 * the count of all, so that what a 503 or {@code /readiness} says stays short with thousands of workers.
 *
 * @param first at most the limit asked for
 * @param total how many there are in all
 */
public record UnavailableWorkers(List<Worker> first, int total) {

    /** Whether a worker cannot take a request now for a reason worth telling: pending, or active and unhealthy. */
    static boolean counts(Worker worker) {
        return worker.state() == Worker.State.PENDING || worker.state() == Worker.State.ACTIVE && !worker.healthy();
    }

    /** A clause for an error message, such as "; 2 workers not reachable: http://a (pending: connection refused)". */
    public String clause() {
        if (total == 0) {
            return "";
        }
        StringBuilder out = new StringBuilder("; ").append(total).append(total == 1 ? " worker" : " workers")
                .append(" not reachable: ");
        for (int i = 0; i < first.size(); i++) {
            Worker worker = first.get(i);
            out.append(i == 0 ? "" : ", ").append(worker.url()).append(" (").append(state(worker)).append(": ")
                    .append(reason(worker)).append(')');
        }
        if (total > first.size()) {
            out.append(" and ").append(total - first.size()).append(" more");
        }
        return out.toString();
    }

    /** The workers as {@code /readiness} lists them: url, state and reason each. */
    public List<Map<String, Object>> listed() {
        List<Map<String, Object>> out = new ArrayList<>(first.size());
        for (Worker worker : first) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("url", worker.url());
            entry.put("state", state(worker));
            entry.put("reason", reason(worker));
            out.add(entry);
        }
        return out;
    }

    private static String state(Worker worker) {
        return worker.state() == Worker.State.PENDING ? "pending" : "unhealthy";
    }

    private static String reason(Worker worker) {
        String reason = worker.unreachableReason();
        if (reason != null) {
            return reason;
        }
        return worker.state() == Worker.State.PENDING ? "first probe under way" : "refused a connection";
    }
}
