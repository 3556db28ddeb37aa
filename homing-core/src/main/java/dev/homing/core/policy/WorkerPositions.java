package dev.homing.core.policy;

import dev.homing.core.tree.PrefixMatch;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a prefix-tree tenant sits in a decision's worker list: the one tenant-to-position mapping of the policies that
 * keep a tree ({@code cache_aware}, {@code load_aware_affinity}), so a decision goes from a matched tenant to its
 * worker without scanning the list.
 *
 * <p>Two levels: each tenant handle's position as last found (an array read, the usual answer), and behind it a map
 * from worker id to position built from one list. The gateway passes a fresh list per decision, usually the same
 * workers in the same order, so nothing is built again while that holds.
 *
 * <p>Invariant: an answer is always right for the list it is asked about: a remembered position is used only when
 * the list has that tenant's id there, and the map is consulted only for a list known to hold the ids it was built
 * from, in that order ({@link #source}; a list not known so is compared id by id once, and the map built again when
 * it differs). Worker ids are unique in a list; a duplicate id is found at its first position.
 *
 * <p>Not thread-safe: a policy uses it inside its decision, under its tree's write lock.
 */
public final class WorkerPositions {

    /** The ids of the list {@link #byId} was built from, by position. */
    private String[] ids = new String[0];
    private Map<String, Integer> byId = Map.of();
    /** The last list found to hold {@link #ids} in order; a list compared once need not be compared again. */
    private List<WorkerView> source = List.of();
    /** Each tenant handle's position as last found, checked against the list on use; -1 when it was not there. */
    private int[] byTenant = new int[0];

    /** The index of {@code match}'s tenant {@code tenant} in {@code workers}, or -1 when that worker is not listed. */
    public int find(PrefixMatch match, int tenant, List<WorkerView> workers) {
        if (byTenant.length < match.tenantLimit()) {
            byTenant = Arrays.copyOf(byTenant, match.tenantLimit());
        }
        String id = match.tenantName(tenant);
        int i = byTenant[tenant];
        if (i >= 0 && i < workers.size() && sameId(workers.get(i).id(), id)) {
            return i;
        }
        i = lookUp(id, workers);
        byTenant[tenant] = i;
        return i;
    }

    private int lookUp(String id, List<WorkerView> workers) {
        if (workers != source) {
            if (!holdsIds(workers)) {
                rebuild(workers);
            }
            source = workers;
        }
        Integer i = byId.get(id);
        return i == null ? -1 : i;
    }

    private boolean holdsIds(List<WorkerView> workers) {
        if (workers.size() != ids.length) {
            return false;
        }
        for (int i = 0; i < ids.length; i++) {
            if (!sameId(workers.get(i).id(), ids[i])) {
                return false;
            }
        }
        return true;
    }

    private void rebuild(List<WorkerView> workers) {
        ids = new String[workers.size()];
        byId = new HashMap<>(workers.size() * 2);
        for (int i = 0; i < ids.length; i++) {
            ids[i] = workers.get(i).id();
            byId.putIfAbsent(ids[i], i);
        }
    }

    /** Identity first: the gateway hands out the same id strings decision after decision. */
    private static boolean sameId(String a, String b) {
        return a == b || a.equals(b);
    }
}
