package dev.homing.config;

import java.util.ArrayList;
import java.util.List;

/** The checks that read more than one setting: each setting's own are in the table. */
final class Relations {

    private Relations() {
    }

    static List<String> problems(Config config) {
        List<String> problems = new ArrayList<>();
        if (config.scope() == Scope.GATEWAY) {
            problems.addAll(TlsFiles.problems(config.get(Settings.TLS_CERT_PATH), config.get(Settings.TLS_KEY_PATH)));
            long initial = config.get(Settings.RETRY_INITIAL_BACKOFF_MS);
            long max = config.get(Settings.RETRY_MAX_BACKOFF_MS);
            if (initial > max) {
                problems.add(Settings.RETRY_INITIAL_BACKOFF_MS.flag() + " must not exceed "
                        + Settings.RETRY_MAX_BACKOFF_MS.flag() + ", got " + initial + " > " + max);
            }
        }
        return problems;
    }
}
