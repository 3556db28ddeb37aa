package dev.homing.core.tree;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tree's meaning by brute force: every inserted text per tenant, prefixes compared one by one. Counts assume
 * well-formed UTF-16 (no lone surrogates), where every code point boundary is a possible node boundary.
 */
final class NaivePrefixModel {

    private final Map<String, List<String>> texts = new HashMap<>();

    void insert(String text, String tenant) {
        texts.computeIfAbsent(tenant, t -> new ArrayList<>()).add(text);
    }

    void remove(String tenant) {
        texts.remove(tenant);
    }

    void replaceWith(Map<String, List<String>> stored) {
        texts.clear();
        stored.forEach((tenant, list) -> texts.put(tenant, new ArrayList<>(list)));
    }

    Set<String> tenants() {
        return texts.keySet();
    }

    List<String> textsOf(String tenant) {
        return texts.getOrDefault(tenant, List.of());
    }

    /** Common prefix length of two strings, moved back so it never ends inside a surrogate pair. */
    static int commonPrefix(String a, String b) {
        int n = 0;
        int max = Math.min(a.length(), b.length());
        while (n < max && a.charAt(n) == b.charAt(n)) {
            n++;
        }
        if (n > 0 && Character.isHighSurrogate(a.charAt(n - 1))
                && ((n < a.length() && Character.isLowSurrogate(a.charAt(n)))
                        || (n < b.length() && Character.isLowSurrogate(b.charAt(n))))) {
            n--;
        }
        return n;
    }

    int matchedFor(String query, String tenant) {
        int best = 0;
        for (String text : textsOf(tenant)) {
            best = Math.max(best, commonPrefix(query, text));
        }
        return best;
    }

    int matched(String query) {
        int best = 0;
        for (String tenant : texts.keySet()) {
            best = Math.max(best, matchedFor(query, tenant));
        }
        return best;
    }

    Set<String> deepest(String query) {
        int matched = matched(query);
        Set<String> deepest = new HashSet<>();
        if (matched > 0) {
            for (String tenant : texts.keySet()) {
                if (matchedFor(query, tenant) == matched) {
                    deepest.add(tenant);
                }
            }
        }
        return deepest;
    }

    long chars(String tenant) {
        return weightedPrefixes(textsOf(tenant));
    }

    long totalChars() {
        List<String> all = new ArrayList<>();
        texts.values().forEach(all::addAll);
        return weightedPrefixes(all);
    }

    /** A trie stores one code point per distinct non-empty prefix: sum the units of those last code points. */
    private static long weightedPrefixes(List<String> strings) {
        Set<String> prefixes = new HashSet<>();
        long units = 0;
        for (String s : strings) {
            for (int i = 0; i < s.length(); i += Character.charCount(s.codePointAt(i))) {
                int end = i + Character.charCount(s.codePointAt(i));
                if (prefixes.add(s.substring(0, end))) {
                    units += end - i;
                }
            }
        }
        return units;
    }
}
