package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 4 of the suite: thousands of streams whose clients stop reading. The gateway must hold each one's backlog
 * back (pausing its engine connection) rather than buffer it, so its heap stays bounded whatever the clients do.
 * The heap is judged by what survived a collection: a buffered backlog would, while how much garbage waits for the
 * next one is the collector's choice (G1 let it reach 230 MB here on one transport, 140 MB on another).
 *
 * <p>Each client reads nothing, through a small receive buffer, until both engines have generated every stream to
 * the end, then reads the rest. Every stream is an SGLang {@code /generate} stream of 300 tokens, whose events
 * carry the whole text so far: some 230 KB a stream, 450 MB for all, far beyond the gateway's heap bound and its
 * direct-buffer bound, so a gateway that buffered instead of pausing would fail both checks.
 *
 * <p>Why direct buffers have a bound of their own: what the gateway has written but the kernel has not taken yet
 * sits in them, outside the heap. On epoll the kernel takes a write at once, up to the socket's send buffer; on
 * io_uring a write in flight holds its buffers until it completes, so a stream whose client does not read holds
 * there up to a write watermark (Netty's 64 KiB, past which the relay pauses the engine connection) and the read
 * buffers its pending events are slices of (at most 64 KiB each): 128 KiB, against the 230 KB a gateway that
 * buffered would hold. The process's resident memory is recorded, not checked: it follows the collector's sizing
 * of the heap as much as the relay.
 */
class SlowReaderIT {

    private static final int STREAMS = 2_000;
    private static final int TOKENS = 300;
    /** Streams opening at once: a burst of thousands of connects overflows accept queues and costs only retries. */
    private static final int OPENING_AT_ONCE = 100;
    private static final String GATEWAY_HEAP = "512m";
    private static final long HEAP_BOUND_BYTES = 256L << 20;
    /** Direct buffers a held-back stream may keep: a write watermark and a read buffer (see the class comment). */
    private static final long DIRECT_BYTES_PER_STREAM = 128L << 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("slow-readers");
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void twoThousandStreamsThatAreNotReadKeepTheGatewayHeapBoundedAndAllComplete() throws Exception {
        List<String> engineJvm = List.of("-Xmx512m", "-XX:+UseSerialGC");
        List<EngineProcess> engines = List.of(
                fleet.engine("engine-0", engineJvm, "--time-scale", "100", "--max-running-requests", "2048"),
                fleet.engine("engine-1", engineJvm, "--time-scale", "100", "--max-running-requests", "2048"));
        GatewayProcess gateway = fleet.gateway(GATEWAY_HEAP, engines, "--policy", "round_robin");
        fleet.awaitReady(gateway, 2);
        long idleHeap = gateway.heapUsedBytes(fleet.control());
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setReceiveBufferSize(8 * 1024),
                new PoolOptions().setHttp1MaxSize(STREAMS));
        ConcurrentLinkedQueue<HeldStream> held = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Answer> refused = new ConcurrentLinkedQueue<>();

        try (MemorySampler memory = new MemorySampler(gateway, fleet.control())) {
            AtomicInteger next = new AtomicInteger();
            for (int i = 0; i < OPENING_AT_ONCE; i++) {
                openNext(http, gateway.url(), next, held, refused);
            }
            fleet.awaitOutcome("every stream open", TIMEOUT)
                    .until(() -> held.size() + refused.size() == STREAMS);
            fleet.awaitOutcome("the engines have generated every stream", TIMEOUT)
                    .until(() -> engines.stream().allMatch(e -> e.requestsInFlight(fleet.control()) == 0)
                            && AnsweredIds.of(engines).count() == STREAMS);
            long heldBackPeak = memory.heapPeakBytes();
            held.forEach(HeldStream::readOn);
            List<Answer> answers = held.stream().map(s -> s.answer().join()).toList();
            long peak = memory.heapPeakBytes();
            long retainedPeak = memory.retainedPeakBytes();
            long directPeak = memory.directPeakBytes();
            long peakResident = gateway.process().peakResidentBytes();
            long streamed = held.stream().mapToLong(HeldStream::bytes).sum();

            assertThat(refused).as("streams refused").isEmpty();
            assertThat(answers).as("every stream read to its [DONE]")
                    .allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
            int duplicated = AnsweredIds.of(engines).duplicated().size();
            assertThat(duplicated).isZero();
            assertThat(memory.samples()).as("memory samples").isGreaterThan(4);
            assertThat(retainedPeak).as("peak gateway heap that survived a collection, -Xmx" + GATEWAY_HEAP)
                    .isLessThan(HEAP_BOUND_BYTES);
            assertThat(directPeak).as("peak direct buffers in use, against a write watermark and a read buffer a stream")
                    .isLessThan(STREAMS * DIRECT_BYTES_PER_STREAM);
            FaultFigures.record(new FaultFigures.Row("4", String.format(Locale.ROOT,
                    "%,d streams of %d tokens (%d MiB in all) unread until generated, then read; gateway -Xmx%s, "
                            + "peak resident %d MiB, heap peak while unread %d MiB, direct buffers peak %d MiB",
                    STREAMS, TOKENS, streamed >> 20, GATEWAY_HEAP, peakResident >> 20, heldBackPeak >> 20,
                    directPeak >> 20), answers, duplicated,
                    String.format(Locale.ROOT, "%d MiB; %d MiB survived a collection (bound %d MiB); %.1fx the %d "
                            + "MiB in use when idle", peak >> 20, retainedPeak >> 20, HEAP_BOUND_BYTES >> 20,
                            (double) peak / idleHeap, idleHeap >> 20)));
        }
    }

    /** Opens the next stream, and when its head is in (or it failed) the one after: a bounded opening wave. */
    private void openNext(HttpClient http, String gatewayUrl, AtomicInteger next,
                          ConcurrentLinkedQueue<HeldStream> held, ConcurrentLinkedQueue<Answer> refused) {
        int i = next.getAndIncrement();
        if (i >= STREAMS) {
            return;
        }
        String requestId = "slow-" + i;
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST)
                .setAbsoluteURI(gatewayUrl + Requests.GENERATE).putHeader("content-type", "application/json")
                .putHeader("x-request-id", requestId);
        http.request(options)
                .compose(request -> request.send(Requests.generate("slow reader " + i, TOKENS)))
                .compose(response -> {
                    if (response.statusCode() == 200) {
                        held.add(HeldStream.hold(requestId, response));
                        return Future.succeededFuture();
                    }
                    return response.body().map(body -> {
                        refused.add(new Answer(requestId, true, response.statusCode(), null, body.toString(), null));
                        return null;
                    });
                })
                .onFailure(failure -> refused.add(Answer.broken(requestId, true, failure)))
                .onComplete(ignored -> openNext(http, gatewayUrl, next, held, refused));
    }
}
