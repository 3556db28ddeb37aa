package dev.homing.cli.faults;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The processes of one fault scenario: simulated engines and a gateway, each on a free loopback port, with their
 * logs and request-id records under {@code target/fault-suite/<scenario>/}. Closing the fleet stops every process it
 * started, and so does the test JVM's exit if a test never gets to close it. Registered as an instance
 * {@code @RegisterExtension} field, a fleet closes itself after each test, after the test's own {@code @AfterEach}.
 */
final class ProcessFleet implements AutoCloseable, AfterEachCallback {

    /** JVM start, picocli, Vert.x and worker registration on two busy cores: generous, and only reached on failure. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final Duration POLL = Duration.ofMillis(100);
    /** A load run's bound, and an outcome's under load: generous, and only reached on failure. */
    static final Duration LOAD_TIMEOUT = Duration.ofSeconds(90);
    /** A small engine's JVM: a few hundred requests need little heap, and a serial collector spares the cores. */
    static final List<String> ENGINE_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC");

    private final Path dir;
    private final FaultClient control = new FaultClient(Duration.ofSeconds(10));
    private final List<HomingProcess> processes = new ArrayList<>();
    private final Thread stopAtExit = new Thread(this::stopAll, "fault-suite-stop");

    ProcessFleet(String scenario) {
        this.dir = suiteDir().resolve(scenario);
        deleteRecursively(dir);
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /** Where the whole suite writes: {@code homing-cli/target/fault-suite}. */
    static Path suiteDir() {
        return Path.of(System.getProperty("fault.suite.dir", "target/fault-suite"));
    }

    /** Starts a simulated engine ({@code homing sim-engine}) with these flags; see {@link EngineProcess}. */
    EngineProcess engine(String name, List<String> jvmOptions, String... flags) {
        EngineProcess engine = EngineProcess.start(name, jvmOptions, List.of(flags), dir);
        processes.add(engine.process());
        return engine;
    }

    /** Starts a gateway ({@code homing launch}) in front of {@code engines}; see {@link GatewayProcess}. */
    GatewayProcess gateway(String heap, List<EngineProcess> engines, String... flags) {
        GatewayProcess gateway = GatewayProcess.start(heap, engines, List.of(flags), dir);
        processes.add(gateway.process());
        return gateway;
    }

    /** Starts a gateway on {@code port} (0: any) in front of these worker URLs; see {@link GatewayProcess}. */
    GatewayProcess gateway(String heap, int port, List<String> workerUrls, String... flags) {
        return gatewayFor(heap, port, List.of("--worker-urls", String.join(",", workerUrls)), flags);
    }

    /**
     * Starts a gateway in prefill/decode mode in front of {@code prefills} (each reporting its bootstrap port) and
     * {@code decodes}.
     */
    GatewayProcess pdGateway(String heap, List<EngineProcess> prefills, List<EngineProcess> decodes,
                             String... flags) {
        List<String> workers = new ArrayList<>(List.of("--pd-disaggregation"));
        prefills.forEach(engine -> workers.addAll(List.of("--prefill", engine.url())));
        decodes.forEach(engine -> workers.addAll(List.of("--decode", engine.url())));
        return gatewayFor(heap, workers, flags);
    }

    /** Starts a gateway whose workers {@code workerFlags} name (ranks of an engine, say). */
    GatewayProcess gatewayFor(String heap, List<String> workerFlags, String... flags) {
        return gatewayFor(heap, 0, workerFlags, flags);
    }

    private GatewayProcess gatewayFor(String heap, int port, List<String> workerFlags, String... flags) {
        GatewayProcess gateway = GatewayProcess.startWith(heap, port, workerFlags, List.of(flags), dir);
        processes.add(gateway.process());
        return gateway;
    }

    /** Waits until the gateway reports {@code workers} healthy workers, its engines having started meanwhile. */
    void awaitReady(GatewayProcess gateway, int workers) {
        awaitOutcome("gateway ready with " + workers + " workers", START_TIMEOUT)
                .until(() -> gateway.healthyWorkers(control) == workers);
    }

    /**
     * A wait for an outcome of the scenario, bounded by {@code atMost} (a bound only a failure reaches) and asked
     * every {@link #POLL}. A control call in the condition that fails (a scrape or {@code /get_load} timing out while
     * both cores are busy) is asked again at the next poll instead of ending the test; a process of the fleet that
     * dies ends the wait at once, with its log.
     */
    ConditionFactory awaitOutcome(String what, Duration atMost) {
        return await(what + " (logs in " + dir + ")").atMost(atMost).pollInterval(POLL).ignoreExceptions()
                .failFast(this::assertNoneDied);
    }

    /** Throws, with the end of its log, if a process of the fleet exited that the test did not stop. */
    void assertNoneDied() {
        processes.forEach(HomingProcess::assertAlive);
    }

    FaultClient control() {
        return control;
    }

    Path dir() {
        return dir;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        stopAll();
        control.close();
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException e) {
            // The JVM is already exiting: the hook runs anyway, and stopping twice is harmless.
        }
    }

    private void stopAll() {
        for (HomingProcess process : processes) {
            process.close();
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + root, e);
        }
    }
}
