package dev.homing.core.policy;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.tree.PrefixMatch;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * How much of one request's routing text each worker holds, by position in the decision's worker list, and which
 * view said so. A worker whose view is exact is judged by its engine: the overlay's cached tokens scaled to text
 * characters ({@code tokens * textChars / promptTokens}), or, when longer, the text it shares with a request still in
 * prefill there ({@link InFlightTexts}: its blocks are not stored yet). Every other worker is judged by the tree.
 *
 * <p>{@link #longestFirst()} orders the positions as a walk of the tree's levels meets their tenants (longest match
 * first, then by tree handle), so a policy deciding on these matches decides as it does on the tree's levels when no
 * worker is exact. Immutable; built inside one decision.
 */
public final class WorkerMatches {

    private final int[] chars;
    private final boolean[] exact;
    private final int[] predictedTokens;
    private final Integer[] order;

    private WorkerMatches(int[] chars, boolean[] exact, int[] predictedTokens, int[] tieOrder) {
        this.chars = chars;
        this.exact = exact;
        this.predictedTokens = predictedTokens;
        this.order = IntStream.range(0, chars.length).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.<Integer>comparingInt(i -> -chars[i]).thenComparingInt(i -> tieOrder[i]));
    }

    static WorkerMatches of(PrefixMatch match, String text, List<WorkerView> workers, ExactOverlay overlay,
                            InFlightTexts inFlight) {
        int n = workers.size();
        int textChars = match.textChars();
        int[] chars = new int[n];
        boolean[] exact = new boolean[n];
        int[] predicted = new int[n];
        int[] tieOrder = new int[n];
        for (int i = 0; i < n; i++) {
            String id = workers.get(i).id();
            int tenant = match.tenantOf(id);
            tieOrder[i] = tenant < 0 ? Integer.MAX_VALUE : tenant;
            if (!overlay.exact(id) || overlay.promptTokens() == 0) {
                chars[i] = match.matchedCharsFor(id);
                continue;
            }
            exact[i] = true;
            int tokens = Math.min(overlay.cachedTokens(id), overlay.promptTokens());
            int held = (int) ((long) tokens * textChars / overlay.promptTokens());
            int pending = inFlight.longestShared(id, text, held);
            chars[i] = pending;
            predicted[i] = pending == held ? tokens
                    : (int) ((long) pending * overlay.promptTokens() / Math.max(1, textChars));
        }
        return new WorkerMatches(chars, exact, predicted, tieOrder);
    }

    /** Characters of the text worker {@code i} holds. */
    public int chars(int i) {
        return chars[i];
    }

    /** Positions, longest match first; equal matches in tree-handle order (workers outside the tree last). */
    public Integer[] longestFirst() {
        return order;
    }

    /** What every available worker holds: the shortest match among them (0 when none is available). */
    public int floor(List<WorkerView> workers) {
        int floor = Integer.MAX_VALUE;
        for (int i = 0; i < chars.length; i++) {
            if (workers.get(i).available()) {
                floor = Math.min(floor, chars[i]);
            }
        }
        return floor == Integer.MAX_VALUE ? 0 : floor;
    }

    /** {@code decision} marked with the view its chosen worker was judged on. */
    public Decision judged(Decision decision) {
        int i = decision.workerIndex();
        return i >= 0 && exact[i] ? decision.judgedOn(RoutingView.EXACT, predictedTokens[i]) : decision;
    }
}
