package dev.homing.tokenizer;

import java.util.Arrays;

/** A growing array of token ids, enough for building one prompt. Not thread-safe. */
public final class TokenIdBuffer {
    private int[] ids = new int[64];
    private int size;

    public void add(int id) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
        }
        ids[size++] = id;
    }

    public void add(int[] more) {
        if (size + more.length > ids.length) {
            ids = Arrays.copyOf(ids, Math.max(ids.length * 2, size + more.length));
        }
        System.arraycopy(more, 0, ids, size, more.length);
        size += more.length;
    }

    public int[] toArray() {
        return Arrays.copyOf(ids, size);
    }
}
