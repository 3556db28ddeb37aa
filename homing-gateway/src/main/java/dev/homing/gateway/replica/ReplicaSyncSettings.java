package dev.homing.gateway.replica;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import io.nats.client.Nats;
import io.nats.client.Options;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How this gateway reaches its sibling replicas: the NATS servers, the credentials (from
 * {@code --replica-sync-credentials} or the environment, never the command line alone), the subjects' prefix, the
 * block size of the prefix hashes and how long readiness waits for a warm start.
 *
 * <p>Credentials, first found wins: the file (a {@code .creds} file with a user JWT and NKey seed, else its first
 * line as {@code user:password} or a token); then {@code HOMING_NATS_CREDS} (a {@code .creds} file's path);
 * then {@code HOMING_NATS_USER} with {@code HOMING_NATS_PASSWORD}; then {@code HOMING_NATS_TOKEN}.
 *
 * @param urls        the NATS servers; empty: sync is off
 * @param credentials the credentials file, or null
 * @param env         the environment the variables are read from
 * @param subject     the prefix of every subject the replicas use
 * @param blockChars  characters per hashed block
 * @param warmTimeout how long after start readiness waits for the replica to be warm; zero does not wait
 */
public record ReplicaSyncSettings(List<String> urls, Path credentials, Map<String, String> env, String subject,
                                  int blockChars, Duration warmTimeout) {

    public ReplicaSyncSettings {
        urls = List.copyOf(urls);
        env = Map.copyOf(env);
    }

    /** The settings of a checked gateway configuration, credentials from {@code env}. */
    public static ReplicaSyncSettings of(Config values, Map<String, String> env) {
        return new ReplicaSyncSettings(values.get(Settings.REPLICA_SYNC), values.get(Settings.REPLICA_SYNC_CREDENTIALS),
                env, values.get(Settings.REPLICA_SYNC_SUBJECT), values.get(Settings.REPLICA_SYNC_BLOCK_CHARS),
                Duration.ofSeconds(values.get(Settings.REPLICA_SYNC_WARM_TIMEOUT_SECS)));
    }

    public boolean enabled() {
        return !urls.isEmpty();
    }

    /**
     * Puts the credentials on {@code options}.
     *
     * @throws IllegalStateException when the credentials file cannot be read or is empty
     */
    void credentials(Options.Builder options) {
        if (credentials != null) {
            String text;
            try {
                text = Files.readString(credentials, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read --replica-sync-credentials " + credentials + ": " + e);
            }
            if (text.contains("-----BEGIN NATS USER JWT-----")) {
                options.authHandler(Nats.credentials(credentials.toString()));
                return;
            }
            String line = text.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst()
                    .orElseThrow(() -> new IllegalStateException("--replica-sync-credentials " + credentials
                            + " is empty"));
            int colon = line.indexOf(':');
            if (colon > 0) {
                options.userInfo(line.substring(0, colon), line.substring(colon + 1));
            } else {
                options.token(line.toCharArray());
            }
            return;
        }
        String creds = env.get("HOMING_NATS_CREDS");
        if (creds != null && !creds.isBlank()) {
            options.authHandler(Nats.credentials(creds));
        } else if (env.get("HOMING_NATS_USER") != null) {
            options.userInfo(env.get("HOMING_NATS_USER"), env.getOrDefault("HOMING_NATS_PASSWORD", ""));
        } else if (env.get("HOMING_NATS_TOKEN") != null) {
            options.token(env.get("HOMING_NATS_TOKEN").toCharArray());
        }
    }

    String eventsSubject() {
        return subject + ".events";
    }

    String warmSubject() {
        return subject + ".warm";
    }

    String snapshotSubject(String replica) {
        return subject + ".snapshot." + replica;
    }
}
