package dev.homing.gateway.testing;

import dev.homing.config.Settings;

import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;

import java.util.ArrayList;
import java.util.List;

/**
 * Simulated engines standing in for pods: each on an address of its own in the loopback range (127.0.0.2, .3, ...),
 * all on one port, as pods share {@code --service-discovery-port}. The OS picks the first engine's port; should that
 * port be taken on another address, the fleet starts again on a new one.
 */
public final class EngineFleet implements AutoCloseable {

    /** A few tries: a port free on one loopback address is rarely taken on the next ones. */
    private static final int TRIES = 20;

    private final List<SimEngineServer> engines;

    private EngineFleet(List<SimEngineServer> engines) {
        this.engines = engines;
    }

    /** {@code count} engines serving {@code model}, {@code timeScale} times faster than real time. */
    public static EngineFleet start(int count, String model, double timeScale) {
        SimEngineOptions options = SimEngines.options(SimEngines.config().with(Settings.MODEL_NAME, model)
                .with(Settings.TIME_SCALE, timeScale));
        RuntimeException last = null;
        for (int attempt = 0; attempt < TRIES; attempt++) {
            List<SimEngineServer> started = new ArrayList<>();
            try {
                int port = 0;
                for (int i = 0; i < count; i++) {
                    SimEngineServer engine = SimEngineServer.start(TestVertx.get(), new SimEngineOptions(ip(i),
                            port, options.modelName(), options.timeScale(), options.engine(), options.faults(),
                            null));
                    started.add(engine);
                    port = engine.port();
                }
                return new EngineFleet(started);
            } catch (RuntimeException e) {
                started.forEach(SimEngineServer::close);
                last = e;
            }
        }
        throw new IllegalStateException("no port free on " + count + " loopback addresses", last);
    }

    /** The pod IP of engine {@code i}. */
    public static String ip(int i) {
        return "127.0.0." + (2 + i);
    }

    public int port() {
        return engines.getFirst().port();
    }

    /** The worker URL of engine {@code i}, as discovery builds it. */
    public String url(int i) {
        return engines.get(i).url();
    }

    @Override
    public void close() {
        engines.forEach(SimEngineServer::close);
    }
}
