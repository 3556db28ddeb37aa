package dev.homing.gateway.testing;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test started (fake workers, gateways), closed after it in the reverse order: a gateway before the workers
 * behind it. Register it as a field: {@code @RegisterExtension final Closing closing = new Closing();}.
 */
public final class Closing implements AfterEachCallback {

    private final List<AutoCloseable> started = new ArrayList<>();

    /** Closes {@code closeable} after the test; returns it. */
    public <T extends AutoCloseable> T add(T closeable) {
        started.add(closeable);
        return closeable;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (AutoCloseable closeable : started.reversed()) {
            closeable.close();
        }
        started.clear();
    }
}
