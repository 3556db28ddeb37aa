package dev.homing.cli;

import dev.homing.bench.cli.BenchCommand;
import dev.homing.config.Config;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.cli.UntilStopped;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import dev.homing.sim.kvevents.KvEventsOptions;
import dev.homing.tokenizer.Tokenizers;
import io.vertx.core.Vertx;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code homing demo}: simulated SGLang engines in this process on free ports and a gateway in front of them, so
 * Homing can be tried with nothing else installed. Serves until Ctrl-C. With {@code --replay} it first sends a
 * built-in multi-turn chat workload through the gateway with {@code homing bench} and prints what it measured.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Start simulated engines and a Homing gateway in front of them, then serve until Ctrl-C.")
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--engines", description = "Simulated engines to start.")
    int engines = 4;

    @Option(names = "--port", description = "Gateway port (0: any free port).")
    int port = Settings.PORT.defaultValue();

    @Option(names = "--policy", description = "Routing policy.")
    String policy = Settings.POLICY.defaultValue();

    @Option(names = "--prometheus-port", description = "Metrics port (-1: none).")
    int prometheusPort = Settings.PROMETHEUS_PORT.defaultValue();

    @Option(names = "--time-scale", description = "How many times faster than real time the engines run.")
    double timeScale = Settings.TIME_SCALE.defaultValue();

    @Option(names = "--kv-events", description = "Engines publish their KV events (ZMQ on free loopback ports) and "
            + "tokenize with the bundled demo tokenizer, which the gateway uses too: it routes on the exact view.")
    boolean kvEvents;

    @Option(names = "--replay", description = "Send a built-in multi-turn chat workload first and print its cache "
            + "hit rate and time to first token.")
    boolean replay;

    /**
     * The built-in workload: 24 conversations of 4 turns over 8 shared system prompts, short answers and think
     * times so it ends in about half a minute at real time.
     */
    static final List<String> REPLAY_WORKLOAD = List.of("--workload", "multi-turn", "--rate", "1",
            "--max-requests", "96", "--duration", "60", "--turns", "4", "--system-prompts", "8",
            "--system-prompt-tokens", "1000", "--output-tokens", "48", "--think-seconds", "0.5", "--seed", "1");

    /** Simulated engines and a gateway, running until closed. */
    public static final class Demo implements AutoCloseable {
        private final Vertx engineVertx;
        private final List<SimEngineServer> servers;
        private final Gateway gateway;

        private Demo(Vertx engineVertx, List<SimEngineServer> servers, Gateway gateway) {
            this.engineVertx = engineVertx;
            this.servers = servers;
            this.gateway = gateway;
        }

        public Gateway gateway() {
            return gateway;
        }

        public List<String> engineUrls() {
            return servers.stream().map(SimEngineServer::url).toList();
        }

        @Override
        public void close() {
            gateway.close();
            servers.forEach(SimEngineServer::close);
            engineVertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    /** Starts the engines and the gateway; the gateway is ready when this returns its engines' model. */
    public Demo start() {
        if (engines < 1) {
            throw new IllegalArgumentException("--engines must be at least 1, got " + engines);
        }
        Vertx engineVertx = SimEngineServer.newVertx();
        List<SimEngineServer> servers = new ArrayList<>();
        try {
            SimEngineOptions options = SimEngineOptions.defaults().withTimeScale(timeScale);
            if (kvEvents) {
                options = options.withTokenizer(Tokenizers.demo()).withKvEvents(KvEventsOptions.of(
                        "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:*\",\"topic\":\"kv-events\"}"));
            }
            for (int i = 0; i < engines; i++) {
                servers.add(SimEngineServer.start(engineVertx, options));
            }
            Config values = Config.defaults(Scope.GATEWAY);
            if (kvEvents) {
                values = values.with(Settings.TOKENIZER_PATH, Tokenizers.DEMO);
            }
            GatewayConfig config = new GatewayConfig(values.with(Settings.HOST, "127.0.0.1")
                    .with(Settings.PORT, port).with(Settings.POLICY, policy)
                    .with(Settings.PROMETHEUS_HOST, "127.0.0.1").with(Settings.PROMETHEUS_PORT, prometheusPort)
                    .with(Settings.WORKER_URLS, servers.stream().map(SimEngineServer::url).toList())
                    .with(Settings.SHUTDOWN_GRACE_PERIOD_SECS, 5L)
                    // Loopback only, and the demo is there to be poked at: its admin routes stay open.
                    .with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, true));
            return new Demo(engineVertx, servers, Gateway.start(config));
        } catch (RuntimeException e) {
            servers.forEach(SimEngineServer::close);
            engineVertx.close();
            throw e;
        }
    }

    /** Runs {@code workload} ({@code homing bench} flags) through the demo's gateway; its table goes to {@code out}. */
    static int replay(Demo demo, List<String> workload, PrintStream out) {
        List<String> args = Stream.concat(Stream.of("--url", "http://127.0.0.1:" + demo.gateway().port(),
                "--engine-urls", String.join(",", demo.engineUrls())), workload.stream()).toList();
        CommandLine bench = new CommandLine(new BenchCommand());
        bench.setOut(new PrintWriter(out, true));
        return bench.execute(args.toArray(String[]::new));
    }

    @Override
    public Integer call() throws InterruptedException {
        return UntilStopped.serve(this::start, this::introduce, new PrintWriter(System.err, true), "homing demo");
    }

    /** Says where everything listens and what to try; replays the built-in workload first when asked. */
    private void introduce(Demo demo) {
        PrintStream out = System.out;
        int gatewayPort = demo.gateway().port();
        out.println("Simulated engines: " + String.join(" ", demo.engineUrls()));
        out.println("Gateway (" + policy + "): http://127.0.0.1:" + gatewayPort);
        if (demo.gateway().metricsPort() > 0) {
            out.println("Metrics: http://127.0.0.1:" + demo.gateway().metricsPort() + "/metrics");
        }
        out.println("Try:");
        out.println("  curl -s http://127.0.0.1:" + gatewayPort + "/v1/chat/completions "
                + "-H 'content-type: application/json' "
                + "-d '{\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}],\"max_tokens\":16}'");
        if (kvEvents) {
            out.println("Each engine's KV event state: curl -s http://127.0.0.1:" + gatewayPort + "/kv_events; "
                    + "each answer's x-homing-routing-view header says exact or approximate");
        }
        if (replay) {
            out.println("Replaying a multi-turn chat workload through the gateway...");
            replay(demo, REPLAY_WORKLOAD, out);
        }
        out.println("Ctrl-C stops.");
    }
}
