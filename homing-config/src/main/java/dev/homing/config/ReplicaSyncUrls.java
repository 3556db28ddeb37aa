package dev.homing.config;

import java.net.URI;

/**
 * What a {@code --replica-sync} URL may look like: {@code nats://host:port} (or {@code tls://}), without credentials:
 * a password on the command line is in every process listing, so credentials come from a file or the environment.
 */
public final class ReplicaSyncUrls {

    private ReplicaSyncUrls() {
    }

    /** The problem with {@code url} in words, or null if it is a usable NATS server URL. */
    public static String problem(String url) {
        URI uri = WorkerUrls.uri(url);
        if (uri == null || !"nats".equals(uri.getScheme()) && !"tls".equals(uri.getScheme())) {
            return "'" + url + "' must be nats://HOST:PORT (or tls://)";
        }
        if (uri.getHost() == null) {
            return "'" + url + "' names no host";
        }
        if (uri.getRawUserInfo() != null) {
            return "'" + url.replace(uri.getRawUserInfo() + "@", "") + "' must not carry credentials: give them in "
                    + "--replica-sync-credentials FILE or HOMING_NATS_* variables";
        }
        return null;
    }
}
