package dev.homing.tokenizer;

/**
 * DJL reports its use to its authors from cloud machines (an HTTP call to the instance metadata address) unless
 * {@code OPT_OUT_TRACKING} is true, read from the environment first and then from the system properties, each time a
 * tokenizer is made. Setting the property before the first tokenizer keeps every process that loads DJL through
 * this module quiet; the build also sets the variable for its test JVMs. Offline mode
 * ({@code ai.djl.offline}) stops DJL downloading anything either: tokenizers here are always local files.
 */
final class DjlTracking {
    private DjlTracking() {
    }

    static void optOut() {
        System.setProperty("OPT_OUT_TRACKING", "true");
        if (System.getProperty("ai.djl.offline") == null) {
            System.setProperty("ai.djl.offline", "true");
        }
    }
}
