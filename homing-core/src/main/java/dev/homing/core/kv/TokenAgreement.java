package dev.homing.core.kv;

/**
 * Whether an engine counts prompts' tokens as the gateway does: the check that the gateway's tokenizer and chat
 * template are the engine's. An exact view matches the gateway's tokens against the blocks the engine stored from
 * its own; where the two tokenize a prompt differently (another template or tokenizer, a template argument the
 * gateway does not see), a look-up matches nothing past the first difference, and routing on it quietly turns into
 * load balancing. The engine reports each prompt's token count in its usage, so every answer can say whether the
 * gateway counted as it did; an answer without usage (a stream that did not ask for it) is checked by its blocks
 * instead ({@link #checkStored}).
 *
 * <p>One differing count proves little (a request rendered otherwise, an engine's own fix-up of a chat), so the
 * verdict is taken over the last {@value #WINDOW} checks: the tokens differ once three quarters of them differed (and
 * at least {@value #MIN_CHECKS} were made), and agree again once at most a quarter did. The gap between the two keeps
 * a mixed workload from flapping. Equal counts do not prove equal tokens (a template that differs by a word of the
 * same length), but every difference that matters for long shows in the counts. Thread-safe.
 */
public final class TokenAgreement {
    /** How many of the latest checks the verdict weighs. */
    public static final int WINDOW = 16;
    /** No verdict of difference before this many checks. */
    public static final int MIN_CHECKS = 4;

    /** One check that differed: what each side counted. */
    public record Difference(long gatewayTokens, long engineTokens) {
    }

    /** The checks so far, and the verdict. */
    public record Summary(long agreed, long differed, boolean differ, Difference lastDifference) {
    }

    /** Bit i set: the i-th latest check differed. */
    private int recent;
    private int inWindow;
    private long agreed;
    private long differed;
    private boolean differ;
    private Difference lastDifference;

    /** One prompt counted by both sides; returns whether the counts differed. */
    public synchronized boolean check(long gatewayTokens, long engineTokens) {
        boolean differs = gatewayTokens != engineTokens;
        if (differs) {
            lastDifference = new Difference(gatewayTokens, engineTokens);
        }
        return record(differs);
    }

    /**
     * One prompt whose answer reported no usage, checked by its blocks instead: whether the engine's events, once it
     * had prefilled the prompt, showed a block of the gateway's tokens that no engine held before. Returns whether
     * it differed (the block never showed).
     */
    public synchronized boolean checkStored(boolean stored) {
        return record(!stored);
    }

    private boolean record(boolean differs) {
        recent = ((recent << 1) | (differs ? 1 : 0)) & ((1 << WINDOW) - 1);
        inWindow = Math.min(WINDOW, inWindow + 1);
        if (differs) {
            differed++;
        } else {
            agreed++;
        }
        int differing = Integer.bitCount(recent);
        if (!differ && inWindow >= MIN_CHECKS && differing * 4 >= inWindow * 3) {
            differ = true;
        } else if (differ && differing * 4 <= inWindow) {
            differ = false;
        }
        return differs;
    }

    /** Whether enough checks were made for a verdict of difference ({@value #MIN_CHECKS}). */
    public synchronized boolean settled() {
        return inWindow >= MIN_CHECKS;
    }

    /** Whether the engine's counts differ from the gateway's, by the rule above; false before any check. */
    public synchronized boolean differ() {
        return differ;
    }

    public synchronized Summary summary() {
        return new Summary(agreed, differed, differ, lastDifference);
    }
}
