package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/homing} as a user runs it, after package: asking for help or the version answers at once and never
 * records the start-up cache (a training run of 10 to 30 s, on JDK 25+), however new the build.
 */
class LauncherIT {

    @ParameterizedTest
    @ValueSource(strings = {"--version", "-V", "--help", "launch --help", "sim-engine -h"})
    void helpAndTheVersionNeverRecordTheStartupCache(String args, @TempDir Path aotDir) throws Exception {
        Path launcher = repositoryRoot().resolve("bin/homing");
        List<String> command = Stream.concat(Stream.of("bash", launcher.toString()),
                Stream.of(args.split(" "))).toList();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("HOMING_AOT_DIR", aotDir.toString());
        builder.environment().remove("HOMING_AOT");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("exited").isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).doesNotContain("recording the start-up cache");
        try (Stream<Path> files = Files.list(aotDir)) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .noneMatch(name -> name.startsWith("homing-") || name.equals("training.log"));
        }
    }

    /** The checkout the tested jar was built in: the jar is {@code homing-cli/target/homing.jar} there. */
    private static Path repositoryRoot() throws IOException {
        Path jar = Path.of(System.getProperty("homing.jar", "target/homing.jar")).toRealPath();
        return jar.getParent().getParent().getParent();
    }
}
