package dev.homing.core.tree;

import java.util.HashMap;
import java.util.Map;

/**
 * Worker ids to the small int handles the tree stores in its nodes, and back. Immutable: the tree replaces it when a
 * tenant arrives or leaves (rare), so a {@link PrefixMatch} can keep the one it was built with after the lock is
 * released. Handles of removed tenants are reused, lowest first, so the handle space stays as small as the worker set.
 */
final class TenantRegistry {

    static final TenantRegistry EMPTY = new TenantRegistry(new String[0], Map.of());

    private final String[] names;
    private final Map<String, Integer> handles;

    private TenantRegistry(String[] names, Map<String, Integer> handles) {
        this.names = names;
        this.handles = handles;
    }

    /** The handle of {@code name}, or -1 when it is not a tenant. */
    int handleOf(String name) {
        Integer h = handles.get(name);
        return h == null ? -1 : h;
    }

    /** The name of a handle, or null when the handle is free. */
    String nameOf(int handle) {
        return handle >= 0 && handle < names.length ? names[handle] : null;
    }

    /** One more than the largest handle in use: the size of an array indexed by handle. */
    int handleLimit() {
        return names.length;
    }

    int size() {
        return handles.size();
    }

    Iterable<String> names() {
        return handles.keySet();
    }

    TenantRegistry with(String name) {
        int free = 0;
        while (free < names.length && names[free] != null) {
            free++;
        }
        String[] newNames = java.util.Arrays.copyOf(names, Math.max(names.length, free + 1));
        newNames[free] = name;
        Map<String, Integer> newHandles = new HashMap<>(handles);
        newHandles.put(name, free);
        return new TenantRegistry(newNames, newHandles);
    }

    TenantRegistry without(String name) {
        int handle = handleOf(name);
        if (handle < 0) {
            return this;
        }
        String[] newNames = names.clone();
        newNames[handle] = null;
        int limit = newNames.length;
        while (limit > 0 && newNames[limit - 1] == null) {
            limit--;
        }
        Map<String, Integer> newHandles = new HashMap<>(handles);
        newHandles.remove(name);
        return new TenantRegistry(java.util.Arrays.copyOf(newNames, limit), newHandles);
    }
}
