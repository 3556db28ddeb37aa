package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.sim.kvevents.KvEventsOptions;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;

/**
 * The engine's switches of its KV event stream, heard by a real ZMQ subscriber: {@code drop} and {@code resume},
 * {@code stop} and {@code start} (the publisher killed, then back on the same port from sequence 0), and
 * {@code restart} (the cache lost, the stream from sequence 0).
 */
class KvEventFaultEndpointsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private final AtomicInteger prompts = new AtomicInteger();
    private SimEngineServer engine;
    private SimEngineClient client;
    private ZContext zmq;
    private ZMQ.Socket subscriber;

    @BeforeEach
    void start() {
        engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000).withKvEvents(
            KvEventsOptions.of("{\"endpoint\":\"tcp://127.0.0.1:*\",\"topic\":\"kv\"}")));
        client = new SimEngineClient(engine);
        zmq = new ZContext(1);
        subscriber = zmq.createSocket(SocketType.SUB);
        subscriber.setLinger(0);
        // A handshake that stalls (the publisher restarting under it) is dropped and made again after 2 s, as the
        // gateway's subscriptions do, rather than leaving the socket silent for ZMQ's default of 30 s.
        subscriber.setHandshakeIvl(2_000);
        subscriber.subscribe(new byte[0]);
        subscriber.connect("tcp://127.0.0.1:" + engine.kvEventEndpoints().getFirst().events().port());
    }

    @AfterEach
    void stop() {
        zmq.close();
        engine.close();
    }

    @Test
    void dropLosesTheBatchesAndResumeSendsTheNextWithTheirNumbersAfterTheGap() {
        List<Long> heard = heardAfterRequests(1);
        assertThat(client.post("/kv_events/drop", "").statusCode()).isEqualTo(200);
        generate(); // its batches are numbered and lost
        assertThat(client.post("/kv_events/resume", "").statusCode()).isEqualTo(200);

        heard.addAll(heardAfterRequests(1));

        assertThat(heard).as("contiguous but for the dropped ones").doesNotHaveDuplicates()
            .hasSizeLessThan((int) (heard.getLast() - heard.getFirst() + 1));
    }

    @Test
    void aStoppedPublisherIsSilentAndStartsAgainOnTheSamePortFromSequenceZero() {
        subscriber.monitor("inproc://kv-fault-test-monitor", ZMQ.EVENT_DISCONNECTED);
        ZMQ.Socket connection = zmq.createSocket(SocketType.PAIR);
        connection.connect("inproc://kv-fault-test-monitor");
        long last = heardAfterRequests(10).getLast();
        assertThat(client.post("/kv_events/stop", "").statusCode()).isEqualTo(200);
        // What was sent before it stopped may still be on its way: it is all read once the closed socket is.
        await().atMost(PATIENCE).until(() -> ZEvent.recv(connection, ZMQ.DONTWAIT) != null);
        drain();
        generate();
        assertThat(drain()).as("a stopped publisher sends nothing").isEmpty();

        assertThat(client.post("/kv_events/start", "").statusCode()).isEqualTo(200);

        // The subscriber reconnects on its own; the first batches may go out before it has.
        assertThat(heardAfterRequests(1).getFirst()).as("numbered from 0 again").isLessThan(last / 2);
        assertThat(client.post("/kv_events/start", "").statusCode()).as("it runs already").isEqualTo(409);
    }

    @Test
    void restartLosesTheCacheAndStartsTheStreamFromSequenceZero() {
        String text = "A prefix long enough to be cached across a few pages of the engine. ".repeat(6);
        generate(text);
        assertThat(generate(text)).as("cached before the restart").isPositive();
        heardAfterRequests(1);

        assertThat(client.post("/kv_events/restart", "").statusCode()).isEqualTo(200);

        assertThat(generate(text)).as("a restarted engine holds nothing").isZero();
        assertThat(heardAfterRequests(0)).as("the loss unsaid, the stream from 0").contains(0L);
    }

    /** Sends {@code count} prompts no other sent, then waits for batches; the sequence numbers heard, in order. */
    private List<Long> heardAfterRequests(int count) {
        for (int i = 0; i < count; i++) {
            generate();
        }
        List<Long> heard = new ArrayList<>();
        await().atMost(PATIENCE).until(() -> {
            heard.addAll(drain());
            if (heard.isEmpty()) {
                generate();
            }
            return !heard.isEmpty();
        });
        return heard;
    }

    private void generate() {
        generate("Prompt " + prompts.incrementAndGet() + " of the KV event fault test, long enough for a page.");
    }

    /** The prompt's cached tokens. */
    private int generate(String text) {
        return client.postJson("/generate", "{\"text\":\"" + text + "\",\"sampling_params\":{\"max_new_tokens\":2}}")
            .at("/meta_info/cached_tokens").intValue();
    }

    /** The sequence numbers of the batches waiting on the subscriber. */
    private List<Long> drain() {
        List<Long> sequences = new ArrayList<>();
        byte[] topic;
        while ((topic = subscriber.recv(ZMQ.DONTWAIT)) != null) {
            assertThat(topic).isEqualTo("kv".getBytes());
            sequences.add(ByteBuffer.wrap(subscriber.recv()).getLong());
            subscriber.recv();
        }
        return sequences;
    }
}
