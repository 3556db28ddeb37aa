package dev.homing.gateway.testing;

import io.vertx.core.Vertx;

/** One Vert.x instance for every fake worker in the test JVM: fixtures are many, threads are few. */
public final class TestVertx {

    private static final Vertx VERTX = Vertx.vertx();

    private TestVertx() {
    }

    public static Vertx get() {
        return VERTX;
    }
}
