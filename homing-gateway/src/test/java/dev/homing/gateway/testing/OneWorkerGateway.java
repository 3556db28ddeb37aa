package dev.homing.gateway.testing;

import dev.homing.config.Config;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.function.UnaryOperator;

/**
 * One {@link FakeWorker} and a {@link RunningGateway} in front of it, shared by the tests of a class: started before
 * the class's own {@code @BeforeAll}, closed after its tests, the worker's record cleared and its behaviour back to
 * normal before each test. Register it as a static {@code @RegisterExtension} field.
 */
public final class OneWorkerGateway implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private final String model;
    private final UnaryOperator<Config> settings;
    private FakeWorker worker;
    private RunningGateway gateway;

    /** A worker serving {@code model}, behind a gateway with the test defaults changed by {@code settings}. */
    public OneWorkerGateway(String model, UnaryOperator<Config> settings) {
        this.model = model;
        this.settings = settings;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        worker = FakeWorker.start(model);
        gateway = RunningGateway.start(settings.apply(RunningGateway.config(List.of(worker))));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        worker.clear();
        worker.behaviour(FakeWorker.Behaviour.NORMAL);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        gateway.close();
        worker.close();
    }

    public FakeWorker worker() {
        return worker;
    }

    public RunningGateway gateway() {
        return gateway;
    }
}
