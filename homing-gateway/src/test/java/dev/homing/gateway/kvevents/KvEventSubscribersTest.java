package dev.homing.gateway.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.KvEventLiveness.State;
import dev.homing.core.kv.KvNamespace;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** Real ZMQ over loopback: a test publisher, the subscribers' thread, and the exact view they keep. */
class KvEventSubscribersTest {

    private static final String WORKER = "http://127.0.0.1:1";
    private static final String MODEL = "m";
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private PrometheusRegistry registry = new PrometheusRegistry();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private KvEventSubscribers subscribers;

    @AfterEach
    void closeAll() throws Exception {
        if (subscribers != null) {
            subscribers.close();
        }
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    private TestPublisher publisher(boolean mapForm, boolean replay) {
        TestPublisher publisher = new TestPublisher("kv", mapForm, replay);
        closing.add(publisher);
        return publisher;
    }

    /**
     * A publisher with the subscribers joined. On a loaded machine a subscription was seen, about once in forty
     * set-ups, never to reach the publisher (cause not found; the worker then stays "never heard", routed on the
     * tree); the set-up is tried afresh, at most three times, so a test judges what it is about.
     */
    private TestPublisher subscribed(boolean mapForm, boolean replay, Duration silence) {
        for (int attempt = 1; ; attempt++) {
            TestPublisher publisher = publisher(mapForm, replay);
            subscribers = new KvEventSubscribers(16, 100_000, silence, registry);
            subscribers.subscribe(WORKER, MODEL, publisher.asEndpoint());
            if (publisher.subscriberJoined(Duration.ofSeconds(10)) || attempt == 3) {
                return publisher;
            }
            subscribers.close();
            registry = new PrometheusRegistry();
        }
    }

    private static int[] tokens(int from, int count) {
        return IntStream.range(from, from + count).toArray();
    }

    private ExactOverlay lookup(int[] prompt) {
        return subscribers.views(MODEL).lookup(prompt, KvNamespace.DEFAULT);
    }

    private State state() {
        return subscribers.statuses().stream().filter(s -> s.worker().equals(WORKER)).findFirst()
                .map(WorkerStream.Status::state).orElse(null);
    }

    private double counter(String name, String label, String value) {
        for (var snapshot : registry.scrape()) {
            if (snapshot.getMetadata().getPrometheusName().equals(name)
                    && snapshot instanceof CounterSnapshot counters) {
                for (var point : counters.getDataPoints()) {
                    if (point.getLabels().get(label).equals(value)) {
                        return point.getValue();
                    }
                }
            }
        }
        return 0;
    }

    @ParameterizedTest(name = "map form: {0}")
    @ValueSource(booleans = {true, false})
    void batchesInSequenceMakeTheWorkerExactAndTheLookupSaysWhatItsEngineHolds(boolean mapForm) {
        TestPublisher publisher = subscribed(mapForm, false, Duration.ofSeconds(1));
        int[] prompt = tokens(100, 40);

        publisher.store(1, null, tokens(100, 16), 16);
        publisher.store(2, 1L, tokens(116, 16), 16);

        await().atMost(PATIENCE).until(() -> lookup(prompt).cachedTokens(WORKER) == 32);
        ExactOverlay overlay = lookup(prompt);
        assertThat(overlay.exact(WORKER)).isTrue();
        assertThat(overlay.promptTokens()).isEqualTo(40);
        assertThat(state()).isEqualTo(State.EXACT);
        assertThat(lookup(tokens(500, 32)).cachedTokens(WORKER)).isZero();
    }

    @Test
    void aRemovalTakesTheBlocksOutOfTheView() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        int[] prompt = tokens(100, 32);
        publisher.store(1, null, tokens(100, 16), 16);
        publisher.store(2, 1L, tokens(116, 16), 16);
        await().atMost(PATIENCE).until(() -> lookup(prompt).cachedTokens(WORKER) == 32);

        publisher.remove(2);

        await().atMost(PATIENCE).until(() -> lookup(prompt).cachedTokens(WORKER) == 16);
    }

    @Test
    void aGapIsFilledFromTheReplaySocketAndTheViewStaysWhole() {
        TestPublisher publisher = subscribed(true, true, Duration.ofSeconds(1));
        int[] prompt = tokens(100, 48);
        publisher.store(1, null, tokens(100, 16), 16);
        publisher.dropNext();
        publisher.store(2, 1L, tokens(116, 16), 16);

        publisher.store(3, 2L, tokens(132, 16), 16);

        await().atMost(PATIENCE).until(() -> lookup(prompt).cachedTokens(WORKER) == 48);
        assertThat(counter("homing_kv_event_gaps", "result", "replayed")).isEqualTo(1);
        assertThat(counter("homing_kv_event_gaps", "result", "lost")).isZero();
        assertThat(state()).isEqualTo(State.EXACT);
    }

    @Test
    void aGapNoReplayCanFillClearsTheViewAndTheNextBatchMakesItExactAgain() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        int[] first = tokens(100, 16);
        int[] second = tokens(900, 16);
        publisher.store(1, null, first, 16);
        await().atMost(PATIENCE).until(() -> lookup(first).cachedTokens(WORKER) == 16);
        publisher.dropNext();
        publisher.remove(1);

        publisher.store(7, null, second, 16);

        await().atMost(PATIENCE).until(() -> lookup(second).cachedTokens(WORKER) == 16);
        assertThat(lookup(first).cachedTokens(WORKER)).isZero();
        assertThat(lookup(first).exact(WORKER)).isTrue();
        assertThat(counter("homing_kv_event_gaps", "result", "lost")).isEqualTo(1);
    }

    @Test
    void aReplayThatNoLongerReachesBackLosesTheGapAndClearsTheView() {
        TestPublisher publisher = subscribed(true, true, Duration.ofSeconds(1));
        int[] first = tokens(100, 16);
        int[] second = tokens(900, 16);
        publisher.store(1, null, first, 16);
        await().atMost(PATIENCE).until(() -> lookup(first).cachedTokens(WORKER) == 16);
        publisher.dropNext();
        long lost = publisher.remove(1);
        publisher.forgetBefore(lost + 1);

        publisher.store(7, null, second, 16);

        await().atMost(PATIENCE).until(() -> counter("homing_kv_event_gaps", "result", "lost") == 1);
        await().atMost(PATIENCE).until(() -> lookup(second).cachedTokens(WORKER) == 16);
        assertThat(lookup(first).cachedTokens(WORKER)).isZero();
        assertThat(state()).isEqualTo(State.EXACT);
    }

    @Test
    void aPublisherThatRestartsAtZeroClearsTheView() {
        TestPublisher publisher = subscribed(false, false, Duration.ofSeconds(1));
        int[] before = tokens(100, 16);
        int[] after = tokens(900, 16);
        publisher.store(1, null, before, 16);
        publisher.store(2, 1L, tokens(116, 16), 16);
        await().atMost(PATIENCE).until(() -> lookup(tokens(100, 32)).cachedTokens(WORKER) == 32);

        publisher.sequence(0);
        publisher.store(1, null, after, 16);

        await().atMost(PATIENCE).until(() -> lookup(after).cachedTokens(WORKER) == 16);
        assertThat(lookup(before).cachedTokens(WORKER)).isZero();
        assertThat(state()).isEqualTo(State.EXACT);
    }

    @Test
    void aWorkerExpectedToPublishThatStaysSilentGoesNoneAndComesBackWithItsNextBatch() {
        TestPublisher publisher = subscribed(true, false, Duration.ofMillis(200));
        int[] prompt = tokens(100, 16);
        publisher.store(1, null, prompt, 16);
        await().atMost(PATIENCE).until(() -> state() == State.EXACT);

        // Requests keep being prefilled there and nothing comes.
        await().atMost(PATIENCE).until(() -> {
            subscribers.expectEvents(WORKER, System.nanoTime());
            return state() == State.NONE;
        });
        assertThat(lookup(prompt).exact(WORKER)).isFalse();

        publisher.store(2, 1L, tokens(116, 16), 16);

        await().atMost(PATIENCE).until(() -> state() == State.EXACT);
        assertThat(lookup(tokens(100, 32)).cachedTokens(WORKER)).isEqualTo(32);
    }

    @Test
    void aMalformedBatchIsCountedTheViewRebuiltAndTheStreamGoesOn() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        int[] first = tokens(100, 16);
        int[] second = tokens(900, 16);
        publisher.store(1, null, first, 16);
        await().atMost(PATIENCE).until(() -> lookup(first).cachedTokens(WORKER) == 16);

        publisher.publish(new byte[] {(byte) 0xc1, 1, 2});
        publisher.store(7, null, second, 16);

        await().atMost(PATIENCE).until(() -> lookup(second).cachedTokens(WORKER) == 16);
        assertThat(counter("homing_kv_event_batches", "outcome", "malformed")).isEqualTo(1);
        assertThat(lookup(first).cachedTokens(WORKER)).isZero();
        assertThat(state()).isEqualTo(State.EXACT);
    }

    @Test
    void anUnsubscribedWorkerIsForgottenAndClosingStopsTheThread() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        int[] prompt = tokens(100, 16);
        publisher.store(1, null, prompt, 16);
        await().atMost(PATIENCE).until(() -> lookup(prompt).exact(WORKER));

        subscribers.unsubscribe(WORKER);

        await().atMost(PATIENCE).until(() -> subscribers.statuses().isEmpty());
        assertThat(lookup(prompt).exact(WORKER)).isFalse();
        assertThat(subscribers.views(MODEL).stats().engineBlocks()).isZero();
        subscribers.close();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("homing-kv-events"));
    }

    @Test
    void subscribingAWorkerAgainReplacesItsSubscription() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        TestPublisher other = publisher(true, false);

        subscribers.subscribe(WORKER, MODEL, other.asEndpoint());
        for (int attempt = 1; !other.subscriberJoined(Duration.ofSeconds(10)) && attempt < 3; attempt++) {
            subscribers.subscribe(WORKER, MODEL, other.asEndpoint()); // as in subscribed(): a join seen lost
        }

        assertThat(subscribers.statuses()).singleElement()
                .satisfies(s -> assertThat(s.endpoint()).isEqualTo(other.endpoint()));
    }
}
