package dev.homing.gateway.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway image's Dockerfile, read as text (no image is built here): a JRE 21+ base, a non-root user, the JVM
 * flags {@code bin/homing} uses on that JDK (the start-up cache's among them), the jar as the entry point.
 */
class DockerfileTest {

    private static final Path DOCKERFILE = Path.of("..", "deploy", "Dockerfile");
    private static final Path LAUNCHER = Path.of("..", "bin", "homing");
    /** {@code flags=(...)} and {@code flags+=(...)} in bin/homing: what every run of the JVM gets. */
    private static final Pattern LAUNCHER_FLAGS = Pattern.compile("(?<!record_)flags\\+?=\\(([^)]*)\\)");
    /** {@code record_flags=(...)} in bin/homing: what the run that records the start-up cache gets besides. */
    private static final Pattern RECORD_FLAGS = Pattern.compile("record_flags=\\(([^)]*)\\)");

    private static List<String> lines() {
        try {
            return Files.readAllLines(DOCKERFILE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The instructions of the image's last stage, the one that runs. */
    private static List<String> finalStage() {
        List<String> lines = lines();
        int from = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("FROM ")) {
                from = i;
            }
        }
        return lines.subList(from, lines.size());
    }

    private static List<String> jvmFlags() {
        String env = finalStage().stream().filter(l -> l.startsWith("ENV HOMING_JVM_FLAGS=")).findFirst()
                .orElseThrow();
        return Arrays.asList(env.substring(env.indexOf('"') + 1, env.lastIndexOf('"')).split(" "));
    }

    /** The heap's share of the container's memory limit, from {@code -XX:MaxRAMPercentage}. */
    static long maxRamPercentage() {
        return jvmFlags().stream().filter(f -> f.startsWith("-XX:MaxRAMPercentage="))
                .mapToLong(f -> Long.parseLong(f.substring(f.indexOf('=') + 1))).findFirst().orElseThrow();
    }

    /** The numeric user the image runs as. */
    static long imageUser() {
        String user = finalStage().stream().filter(l -> l.startsWith("USER ")).findFirst().orElseThrow();
        return Long.parseLong(user.substring("USER ".length()).split(":")[0].trim());
    }

    @Test
    void theImageRunsOnAJre21OrNewer() {
        Matcher base = Pattern.compile("FROM eclipse-temurin:(\\d+)-jre$").matcher(finalStage().getFirst());

        assertThat(base.find()).as(finalStage().getFirst()).isTrue();
        assertThat(Integer.parseInt(base.group(1))).isGreaterThanOrEqualTo(21);
    }

    @Test
    void theImageRunsAsANonRootUser() {
        assertThat(imageUser()).isPositive();
    }

    @Test
    void theImageRunsTheJvmWithTheFlagsOfBinHoming() throws IOException {
        List<String> launcherFlags = launcherFlags(LAUNCHER_FLAGS);

        List<String> imageFlags = new ArrayList<>(jvmFlags());
        imageFlags.addAll(Arrays.asList(entrypoint().split("[\\s\"]+")));

        assertThat(launcherFlags).contains("--enable-native-access=ALL-UNNAMED", "-XX:+UseCompactObjectHeaders",
                "-XX:AOTMode=auto");
        assertThat(imageFlags).containsAll(launcherFlags);
    }

    @Test
    void theImageRecordsItsStartUpCacheAsBinHomingDoes() throws IOException {
        List<String> recordFlags = launcherFlags(RECORD_FLAGS);
        String recording = String.join(" ", finalStage()).replace("\\", " ");
        recording = recording.substring(recording.indexOf("RUN java $HOMING_JVM_FLAGS"));
        recording = recording.substring(0, recording.indexOf("StartupTraining"));

        assertThat(recordFlags).contains("-XX:-AOTRecordTraining");
        assertThat(recording).contains("-XX:AOTCacheOutput=");
        assertThat(Arrays.asList(recording.split("\\s+"))).containsAll(recordFlags);
    }

    /** The literal JVM flags of bin/homing's arrays that {@code pattern} finds. */
    private static List<String> launcherFlags(Pattern pattern) throws IOException {
        List<String> flags = new ArrayList<>();
        Matcher matcher = pattern.matcher(Files.readString(LAUNCHER));
        while (matcher.find()) {
            for (String flag : matcher.group(1).trim().split("\\s+")) {
                if (flag.startsWith("-") && !flag.contains("$")) {
                    flags.add(flag);
                }
            }
        }
        return flags;
    }

    private static String entrypoint() {
        return finalStage().stream().filter(l -> l.startsWith("ENTRYPOINT ")).findFirst().orElseThrow();
    }

    @Test
    void theEntryPointRunsTheGatewayJarWithTheFlags() {
        assertThat(entrypoint()).contains("exec java $HOMING_JVM_FLAGS", "-jar /opt/homing/homing.jar \\\"$@\\\"");
        assertThat(finalStage()).contains("CMD [\"launch\"]");
    }
}
