package dev.homing.core.tree;

/**
 * Keeps a {@link PrefixTree} in step with the trees of other gateway replicas of the same model: it is told of each
 * decision's insert and trim (to publish them), and may teach the tree what the others placed before a decision
 * matches a text. Called on the deciding thread outside the tree's lock, so it may take its time (hash the text);
 * it may call {@link PrefixTree#match}, {@link PrefixTree#learn} and {@link PrefixTree#forgetBranches}, never a
 * method that tells it again.
 */
public interface TreeSync {

    /** A decision is about to match {@code text} in {@code tree}: teach the tree what other replicas placed. */
    void beforeMatch(PrefixTree tree, String text);

    /** {@code tenant} was sent {@code text}, of which it already held the first {@code heldChars} characters. */
    void inserted(String text, int heldChars, String tenant);

    /** {@code tenant} was found to hold only the first {@code keptChars} of {@code text}: its other branches went. */
    void trimmed(String text, int keptChars, String tenant);
}
