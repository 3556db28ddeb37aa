package dev.homing.sim.http;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One simulated engine on a loopback ephemeral port shared by the tests of a class, and the client to it: started
 * before the first test and closed after the last. Register it as a static {@code @RegisterExtension} field.
 */
final class SharedSimEngine extends SimEngineClient implements BeforeAllCallback, AfterAllCallback {
    private final SimEngineOptions options;
    private final AtomicReference<SimEngineServer> server;

    private SharedSimEngine(SimEngineOptions options, AtomicReference<SimEngineServer> server) {
        super(() -> server.get().url());
        this.options = options;
        this.server = server;
    }

    static SharedSimEngine of(SimEngineOptions options) {
        return new SharedSimEngine(options, new AtomicReference<>());
    }

    /** The default engine at {@code timeScale} times real time. */
    static SharedSimEngine atTimeScale(double timeScale) {
        return of(SimEngineOptions.defaults().withTimeScale(timeScale));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server.set(SimEngineServer.start(options));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.get().close();
    }

    SimEngineServer server() {
        return server.get();
    }
}
