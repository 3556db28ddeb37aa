package dev.homing.gateway.http;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.LogCapture;
import dev.homing.gateway.testing.RunningGateway;
import io.vertx.core.transport.Transport;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class IoTransportsTest {

    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"stream\":";

    @Test
    void autoTakesTheFirstOfIoUringEpollAndNioThatStartsHere() {
        Transport expected = Transport.IO_URING.available() ? Transport.IO_URING
                : Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;

        assertThat(IoTransports.named("auto")).isSameAs(expected);
        assertThat(IoTransports.problem("auto")).isNull();
    }

    @Test
    void aTransportNamedExplicitlyIsThatOneAndNioAlwaysStarts() {
        assertThat(IoTransports.named("nio")).isSameAs(Transport.NIO);
        assertThat(IoTransports.problem("nio")).isNull();
        assertThat(IoTransports.problem("none of the four")).as("the settings table refuses it").isNull();
    }

    @Test
    void aTransportNamedExplicitlyThatCannotStartIsAProblemNamingTheFlagAndTheKernelsRefusal() {
        String problem = IoTransports.problem("io_uring", new Unavailable(
                new IllegalStateException("failed to create io_uring", new RuntimeException("Operation not permitted"))));

        assertThat(problem).isEqualTo("--io-transport io_uring cannot start here: Operation not permitted "
                + "(auto falls back to the next transport that starts)");
        assertThat(IoTransports.problem("io_uring", Transport.NIO)).isNull();
    }

    @Test
    void anUnknownNameIsRefused() {
        assertThatThrownBy(() -> IoTransports.named("kqueue")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kqueue");
    }

    /** Every transport that starts here proxies a whole answer, a stream, and HTTP/2, and the start says which. */
    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll", "nio"})
    void theGatewayServesOnEveryTransportThatStartsHere(String name) {
        servesOn(name, 0, " sockets, metrics port");
    }

    /** The same with the event loops spinning after I/O: each transport's handler, run without blocking, serves. */
    @ParameterizedTest
    @ValueSource(strings = {"io_uring", "epoll", "nio"})
    void theGatewayServesOnEveryTransportWhileBusyPolling(String name) {
        servesOn(name, 500, " sockets busy-polling 500 us after I/O, metrics port");
    }

    private static void servesOn(String name, int busyPollMicros, String logged) {
        assumeTrue(IoTransports.problem(name) == null, name + " does not start on this machine");
        FakeWorker worker = FakeWorker.start("m");
        try (LogCapture log = LogCapture.infoOf(dev.homing.gateway.Gateway.class);
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                     .with(Settings.IO_TRANSPORT, name).with(Settings.BUSY_POLL_US, busyPollMicros))) {
            HttpResponse<String> whole = gateway.post("/v1/chat/completions", CHAT + "false}");
            HttpResponse<String> stream = gateway.post("/v1/chat/completions", CHAT + "true}");
            HttpResponse<String> overHttp2 = gateway.sendOverHttp2(HttpRequest.newBuilder(
                            URI.create(gateway.url("/v1/chat/completions"))).timeout(Duration.ofSeconds(10))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(CHAT + "true}")).build());

            assertThat(whole.statusCode()).isEqualTo(200);
            assertThat(stream.body()).isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
            assertThat(overHttp2.body()).isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
            assertThat(log.messages()).anyMatch(line -> line.contains("(policy load_aware_affinity, " + name
                    + logged));
            gateway.awaitNothingInFlight();
        } finally {
            worker.close();
        }
    }

    /** A transport that cannot start, for the cause it gives. */
    private record Unavailable(Throwable unavailabilityCause) implements Transport {
        @Override
        public String name() {
            return "io_uring";
        }

        @Override
        public boolean available() {
            return false;
        }

        @Override
        public io.vertx.core.spi.transport.Transport implementation() {
            throw new UnsupportedOperationException();
        }
    }
}
