package dev.homing.core.tree;

import java.util.Arrays;

/**
 * One node of a {@link PrefixTree}. Not thread-safe: every field is guarded by the tree's lock, written only under
 * its write lock.
 *
 * <p>Tenants are packed one {@code long} each, handle in the high bits and last-access stamp in the low
 * {@value #STAMP_BITS} bits, sorted by handle (so by value), so finding a tenant among hundreds is a binary search
 * and a node with one tenant costs one 24-byte array. The tenant array is copy-on-write (a {@link PrefixMatch} keeps
 * references to it after the lock is released); only stamps are updated in place, which leaves handles untouched.
 */
final class Node {

    /** 44 bits of stamp: at a million inserts a second the logical clock lasts 200 days before it saturates. */
    static final int STAMP_BITS = 44;
    static final long STAMP_MASK = (1L << STAMP_BITS) - 1;
    /** 19 bits of handle keep the packed value positive, so sorting by value sorts by handle. */
    static final int MAX_TENANTS = 1 << 19;

    static final long[] NO_TENANTS = new long[0];
    private static final Node[] NO_CHILDREN = new Node[0];

    Node parent;
    /** Never empty except at the root; see {@link EdgeText}. */
    String edge;
    /** Sorted by {@link EdgeText#firstCodePoint}; distinct first code points. */
    Node[] children = NO_CHILDREN;
    long[] tenants;

    Node(Node parent, String edge, long[] tenants) {
        this.parent = parent;
        this.edge = edge;
        this.tenants = tenants;
    }

    int length() {
        return edge.length();
    }

    static long slot(int handle, long stamp) {
        return ((long) handle << STAMP_BITS) | Math.min(stamp, STAMP_MASK);
    }

    static int handle(long slot) {
        return (int) (slot >>> STAMP_BITS);
    }

    static long stamp(long slot) {
        return slot & STAMP_MASK;
    }

    /**
     * Index of {@code handle} in a sorted tenant array, or {@code -(insertion point) - 1}. Its slot is the one equal
     * to the handle at stamp 0, or else the first one above that.
     */
    static int indexOf(long[] tenants, int handle) {
        int i = Arrays.binarySearch(tenants, slot(handle, 0));
        if (i >= 0) {
            return i;
        }
        int above = -i - 1;
        return above < tenants.length && handle(tenants[above]) == handle ? above : i;
    }

    boolean holds(int handle) {
        return indexOf(tenants, handle) >= 0;
    }

    /**
     * Stamps {@code handle} with {@code stamp}, adding it when absent.
     *
     * @return whether the tenant was already present
     */
    boolean touch(int handle, long stamp) {
        int i = indexOf(tenants, handle);
        if (i >= 0) {
            tenants[i] = slot(handle, stamp);
            return true;
        }
        int at = -i - 1;
        long[] grown = new long[tenants.length + 1];
        System.arraycopy(tenants, 0, grown, 0, at);
        grown[at] = slot(handle, stamp);
        System.arraycopy(tenants, at, grown, at + 1, tenants.length - at);
        tenants = grown;
        return false;
    }

    /** Removes {@code handle}; returns whether it was present. */
    boolean drop(int handle) {
        int i = indexOf(tenants, handle);
        if (i < 0) {
            return false;
        }
        long[] shrunk = new long[tenants.length - 1];
        System.arraycopy(tenants, 0, shrunk, 0, i);
        System.arraycopy(tenants, i + 1, shrunk, i, tenants.length - i - 1);
        tenants = shrunk.length == 0 ? NO_TENANTS : shrunk;
        return true;
    }

    long stampOf(int handle) {
        int i = indexOf(tenants, handle);
        return i >= 0 ? stamp(tenants[i]) : 0;
    }

    /** Index of the child whose edge starts with {@code codePoint}, or {@code -(insertion point) - 1}. */
    private int childIndex(int codePoint) {
        int lo = 0;
        int hi = children.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int key = EdgeText.firstCodePoint(children[mid].edge);
            if (key < codePoint) {
                lo = mid + 1;
            } else if (key > codePoint) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    Node child(int codePoint) {
        int i = childIndex(codePoint);
        return i >= 0 ? children[i] : null;
    }

    void addChild(Node child) {
        int i = childIndex(EdgeText.firstCodePoint(child.edge));
        if (i >= 0) {
            throw new IllegalStateException("two children with the same first character");
        }
        int at = -i - 1;
        Node[] grown = new Node[children.length + 1];
        System.arraycopy(children, 0, grown, 0, at);
        grown[at] = child;
        System.arraycopy(children, at, grown, at + 1, children.length - at);
        children = grown;
    }

    /** Puts {@code replacement} where {@code old} was; both start with the same code point. */
    void replaceChild(Node old, Node replacement) {
        children[childIndex(EdgeText.firstCodePoint(old.edge))] = replacement;
    }

    void removeChild(Node child) {
        int i = childIndex(EdgeText.firstCodePoint(child.edge));
        if (i < 0 || children[i] != child) {
            return;
        }
        if (children.length == 1) {
            children = NO_CHILDREN;
            return;
        }
        Node[] shrunk = new Node[children.length - 1];
        System.arraycopy(children, 0, shrunk, 0, i);
        System.arraycopy(children, i + 1, shrunk, i, children.length - i - 1);
        children = shrunk;
    }

    boolean anyChildHolds(int handle) {
        for (Node c : children) {
            if (c.holds(handle)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return edge + Arrays.toString(Arrays.stream(tenants).mapToInt(Node::handle).toArray());
    }
}
