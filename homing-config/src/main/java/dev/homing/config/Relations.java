package dev.homing.config;

import java.util.ArrayList;
import java.util.List;

/** The checks that read more than one setting: each setting's own are in the table. */
final class Relations {

    private Relations() {
    }

    static List<String> problems(Config config) {
        List<String> problems = new ArrayList<>();
        if (config.scope() != Scope.SIMULATE) {
            problems.addAll(TokenizerFiles.problems(config));
        }
        if (config.scope() == Scope.GATEWAY) {
            problems.addAll(TlsFiles.problems(config.get(Settings.TLS_CERT_PATH), config.get(Settings.TLS_KEY_PATH)));
            long initial = config.get(Settings.RETRY_INITIAL_BACKOFF_MS);
            long max = config.get(Settings.RETRY_MAX_BACKOFF_MS);
            if (initial > max) {
                problems.add(Settings.RETRY_INITIAL_BACKOFF_MS.flag() + " must not exceed "
                        + Settings.RETRY_MAX_BACKOFF_MS.flag() + ", got " + initial + " > " + max);
            }
            problems.addAll(prefillDecodeProblems(config));
            problems.addAll(rankProblems(config));
        }
        return problems;
    }

    /** Prefill/decode mode's flags go together, and regular workers have no place in it. */
    private static List<String> prefillDecodeProblems(Config config) {
        List<String> problems = new ArrayList<>();
        List<Setting<?>> pdOnly = List.of(Settings.PREFILL, Settings.DECODE, Settings.PREFILL_POLICY,
                Settings.DECODE_POLICY, Settings.PREFILL_SELECTOR, Settings.DECODE_SELECTOR);
        if (!config.get(Settings.PD_DISAGGREGATION)) {
            for (Setting<?> setting : pdOnly) {
                if (!config.isDefault(setting)) {
                    problems.add(setting.flag() + " needs " + Settings.PD_DISAGGREGATION.flag());
                }
            }
            return problems;
        }
        if (!config.get(Settings.WORKER_URLS).isEmpty()) {
            problems.add(Settings.WORKER_URLS.flag() + " names regular workers, which take no traffic with "
                    + Settings.PD_DISAGGREGATION.flag() + "; give " + Settings.PREFILL.flag() + " and "
                    + Settings.DECODE.flag());
        }
        if (config.get(Settings.SERVICE_DISCOVERY)) {
            if (!config.get(Settings.SELECTOR).isEmpty()) {
                problems.add(Settings.SELECTOR.flag() + " picks regular workers; with "
                        + Settings.PD_DISAGGREGATION.flag() + " pods are picked by " + Settings.PREFILL_SELECTOR.flag()
                        + " and " + Settings.DECODE_SELECTOR.flag());
            }
            if (config.get(Settings.PREFILL_SELECTOR).isEmpty() || config.get(Settings.DECODE_SELECTOR).isEmpty()) {
                problems.add(Settings.SERVICE_DISCOVERY.flag() + " with " + Settings.PD_DISAGGREGATION.flag()
                        + " needs both " + Settings.PREFILL_SELECTOR.flag() + " and "
                        + Settings.DECODE_SELECTOR.flag() + ", so no pod could be taken for both roles");
            }
        }
        return problems;
    }

    /** A worker URL naming a data-parallel rank ({@code url@rank}) is read only with {@code --dp-aware}. */
    private static List<String> rankProblems(Config config) {
        if (config.get(Settings.DP_AWARE)) {
            return List.of();
        }
        List<String> urls = new ArrayList<>(config.get(Settings.WORKER_URLS));
        urls.addAll(config.get(Settings.DECODE));
        config.get(Settings.PREFILL).stream().filter(value -> value.contains("://")).forEach(urls::add);
        for (String url : urls) {
            if (WorkerUrls.rank(url.strip().split("\\s+")[0]) != null) {
                return List.of("'" + url + "' names a data-parallel rank, which needs " + Settings.DP_AWARE.flag());
            }
        }
        return List.of();
    }
}
