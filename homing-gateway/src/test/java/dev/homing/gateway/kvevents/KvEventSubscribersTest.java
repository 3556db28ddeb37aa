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

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/** Real ZMQ over loopback: a test publisher, the subscribers' thread, and the exact view they keep. */
class KvEventSubscribersTest {

    private static final String WORKER = "http://127.0.0.1:1";
    private static final String MODEL = "m";
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final int[] FIRST = tokens(100, 16);
    private static final int[] SECOND = tokens(900, 16);

    private final PrometheusRegistry registry = new PrometheusRegistry();
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
     * A publisher with the subscribers joined; with a replay socket, once their catch-up found nothing buffered, so
     * that what the test publishes next comes live.
     */
    private TestPublisher subscribed(boolean mapForm, boolean replay, Duration silence) {
        TestPublisher publisher = publisher(mapForm, replay);
        subscribed(publisher.asEndpoint(), silence, KvEventSubscribers.REPLAY_TIMEOUT);
        publisher.awaitSubscriber();
        if (replay) {
            await().atMost(PATIENCE).until(() -> status().map(WorkerStream.Status::reason).orElse("")
                    .equals("nothing_heard"));
        }
        return publisher;
    }

    private void subscribed(KvEventEndpoint endpoint, Duration silence, Duration replayTimeout) {
        subscribers = new KvEventSubscribers(16, 100_000, silence, replayTimeout, registry);
        subscribers.subscribe(WORKER, MODEL, endpoint);
    }

    private static int[] tokens(int from, int count) {
        return IntStream.range(from, from + count).toArray();
    }

    /** The first batch of a stream: {@link #FIRST} stored at sequence 1, awaited in the view. */
    private void storeFirst(TestPublisher publisher) {
        publisher.store(1, null, FIRST, 16);
        await().atMost(PATIENCE).until(() -> lookup(FIRST).cachedTokens(WORKER) == 16);
    }

    /** After a gap the view could not keep: {@link #SECOND} from a batch at sequence 7 is all the view holds. */
    private void storeSecondAndAwaitOnlyIt(TestPublisher publisher) {
        publisher.store(7, null, SECOND, 16);
        await().atMost(PATIENCE).until(() -> lookup(SECOND).cachedTokens(WORKER) == 16);
        assertThat(lookup(FIRST).cachedTokens(WORKER)).isZero();
    }

    private ExactOverlay lookup(int[] prompt) {
        return subscribers.views(MODEL).lookup(prompt, KvNamespace.DEFAULT);
    }

    private State state() {
        return status().map(WorkerStream.Status::state).orElse(null);
    }

    /** Waits until a batch was heard and the view is exact on it (not merely connected). */
    private void awaitInSequence() {
        await().atMost(PATIENCE).until(() -> status().map(WorkerStream.Status::reason).orElse("").equals("in_sequence"));
    }

    private Optional<WorkerStream.Status> status() {
        return subscribers.statuses().stream().filter(s -> s.worker().equals(WORKER)).findFirst();
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
    void aSubscriptionConnectedBeforeAnyBatchIsAnExactEmptyView() {
        subscribed(true, false, Duration.ofSeconds(1));

        await().atMost(PATIENCE).until(() -> state() == State.EXACT);
        assertThat(status().orElseThrow().reason()).isEqualTo("nothing_heard");
        // The view is taken as exact just after the status says so.
        await().atMost(PATIENCE).until(() -> lookup(tokens(100, 32)).exact(WORKER));
        assertThat(lookup(tokens(100, 32)).cachedTokens(WORKER)).isZero();
    }

    @Test
    void aPublisherThatGoesAwayTurnsTheWorkerNoneWithoutWaitingForSilence() throws InterruptedException {
        TestPublisher publisher = subscribed(true, false, Duration.ofHours(1));
        publisher.store(1, null, tokens(100, 16), 16);
        awaitInSequence();

        publisher.close();

        await().atMost(PATIENCE).until(() -> state() == State.NONE);
        assertThat(status().orElseThrow().reason()).isEqualTo("not_connected");
        // The view is set aside just after the status says so.
        await().atMost(PATIENCE).until(() -> !lookup(tokens(100, 16)).exact(WORKER));
    }

    @Test
    void aSubscriptionThatNeverConnectsIsNone() throws IOException {
        subscribed(new KvEventEndpoint("tcp://127.0.0.1:" + unusedPort(), null, "kv", KvEventDecoder.ArrayLayout.VLLM),
                Duration.ofSeconds(1), KvEventSubscribers.REPLAY_TIMEOUT);

        await().atMost(PATIENCE).until(() -> state() != null);
        assertThat(state()).isEqualTo(State.NONE);
        assertThat(status().orElseThrow().reason()).isEqualTo("not_connected");
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
    void aSubscriptionToAStreamThatRanBeforeCatchesUpAtOnceOnWhatTheReplayBuffers() {
        TestPublisher publisher = publisher(true, true);
        // Published before anyone subscribed, as to a gateway that was not running yet; the buffer no longer holds
        // the first batch.
        publisher.store(1, null, FIRST, 16);
        int[] removedLater = tokens(300, 16);
        int[] third = tokens(500, 16);
        publisher.store(5, null, removedLater, 16);
        publisher.remove(5);
        publisher.store(9, null, third, 16);
        publisher.forgetBefore(1);
        subscribed(publisher.asEndpoint(), Duration.ofSeconds(1), KvEventSubscribers.REPLAY_TIMEOUT);
        publisher.awaitSubscriber();

        // Before the engine publishes anything new: the view is whole from the gateway's first request.
        await().atMost(PATIENCE).until(() -> lookup(third).cachedTokens(WORKER) == 16);
        awaitInSequence();
        assertThat(lookup(third).exact(WORKER)).isTrue();
        assertThat(lookup(removedLater).cachedTokens(WORKER)).as("stored, then removed, both replayed").isZero();
        assertThat(lookup(FIRST).cachedTokens(WORKER)).as("gone from the engine's buffer").isZero();

        publisher.store(12, null, SECOND, 16);
        await().atMost(PATIENCE).until(() -> lookup(SECOND).cachedTokens(WORKER) == 16);
        assertThat(lookup(third).cachedTokens(WORKER)).isEqualTo(16);
        assertThat(counter("homing_kv_event_gaps", "result", "lost")).isZero();
        assertThat(counter("homing_kv_event_gaps", "result", "replayed")).as("a catch-up is not a gap").isZero();
    }

    /**
     * An engine's replay socket (a ROUTER) drops what its queue of 1,000 messages cannot take, end marker included or
     * not, while the subscriber applies the first ones: a catch-up of a few thousand batches asks again from where
     * the holes begin until an answer brings nothing new, and arrives whole.
     */
    @Test
    void aCatchUpLargerThanTheReplaySocketsQueueAsksAgainUntilItIsWhole() {
        TestPublisher publisher = publisher(true, true);
        int batches = 2_500;
        for (int b = 0; b < batches; b++) {
            publisher.store(1_000_000L * b, null, tokens(16 * b, 16), 16);
        }
        subscribed(publisher.asEndpoint(), Duration.ofSeconds(1), KvEventSubscribers.REPLAY_TIMEOUT);

        await().atMost(PATIENCE).until(() -> lookup(tokens(16 * (batches - 1), 16)).cachedTokens(WORKER) == 16);
        awaitInSequence();
        assertThat(IntStream.range(0, batches).filter(b -> lookup(tokens(16 * b, 16)).cachedTokens(WORKER) != 16))
                .as("batches missing from the view").isEmpty();
        assertThat(counter("homing_kv_event_batches", "outcome", "applied")).isEqualTo(batches);
    }

    @Test
    void aGapNoReplayCanFillClearsTheViewAndTheNextBatchMakesItExactAgain() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        storeFirst(publisher);
        publisher.dropNext();
        publisher.remove(1);

        storeSecondAndAwaitOnlyIt(publisher);

        assertThat(lookup(FIRST).exact(WORKER)).isTrue();
        assertThat(counter("homing_kv_event_gaps", "result", "lost")).isEqualTo(1);
    }

    @Test
    void aReplayThatNoLongerReachesBackLosesTheGapAndClearsTheView() {
        TestPublisher publisher = subscribed(true, true, Duration.ofSeconds(1));
        storeFirst(publisher);
        publisher.dropNext();
        long lost = publisher.remove(1);
        publisher.forgetBefore(lost + 1);

        storeSecondAndAwaitOnlyIt(publisher);

        await().atMost(PATIENCE).until(() -> counter("homing_kv_event_gaps", "result", "lost") == 1);
        assertThat(state()).isEqualTo(State.EXACT);
    }

    @Test
    void aReplayThatNeverAnswersIsGivenUpAtItsTimeoutAndTheGapIsLost() throws IOException {
        TestPublisher publisher = publisher(true, false);
        // A replay endpoint nobody serves: the request goes unanswered.
        subscribed(new KvEventEndpoint(publisher.endpoint(), "tcp://127.0.0.1:" + unusedPort(), publisher.topic(),
                KvEventDecoder.ArrayLayout.VLLM), Duration.ofSeconds(1), Duration.ofMillis(200));
        publisher.awaitSubscriber();
        storeFirst(publisher);
        publisher.dropNext();
        publisher.remove(1);

        storeSecondAndAwaitOnlyIt(publisher);

        await().atMost(PATIENCE).until(() -> counter("homing_kv_event_gaps", "result", "lost") == 1);
        assertThat(counter("homing_kv_event_gaps", "result", "replayed")).isZero();
    }

    private static int unusedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
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
        storeFirst(publisher);

        // Requests keep being prefilled there and nothing comes.
        await().atMost(PATIENCE).until(() -> {
            subscribers.expectEvents(WORKER, System.nanoTime(), System.nanoTime());
            return state() == State.NONE;
        });
        // The view follows the status a moment later, both ways.
        await().atMost(PATIENCE).until(() -> !lookup(FIRST).exact(WORKER));

        publisher.store(2, 1L, tokens(116, 16), 16);

        await().atMost(PATIENCE).until(() -> state() == State.EXACT);
        await().atMost(PATIENCE).until(() -> lookup(tokens(100, 32)).cachedTokens(WORKER) == 32);
    }

    @Test
    void aMalformedBatchIsCountedTheViewRebuiltAndTheStreamGoesOn() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        storeFirst(publisher);

        publisher.publish(new byte[] {(byte) 0xc1, 1, 2});
        storeSecondAndAwaitOnlyIt(publisher);

        assertThat(counter("homing_kv_event_batches", "outcome", "malformed")).isEqualTo(1);
        assertThat(state()).isEqualTo(State.EXACT);
    }

    @Test
    void anUnsubscribedWorkerIsForgottenAndClosingStopsTheThread() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        storeFirst(publisher);

        subscribers.unsubscribe(WORKER);

        await().atMost(PATIENCE).until(() -> subscribers.statuses().isEmpty());
        // The stream's view goes just after the stream leaves the statuses.
        await().atMost(PATIENCE).until(() -> !lookup(FIRST).exact(WORKER)
                && subscribers.views(MODEL).stats().engineBlocks() == 0);
        subscribers.close();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("homing-kv-events"));
    }

    @Test
    void subscribingAWorkerAgainReplacesItsSubscription() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        TestPublisher other = publisher(true, false);

        subscribers.subscribe(WORKER, MODEL, other.asEndpoint());
        other.awaitSubscriber();

        // The new stream's socket connects as it is made, a moment before it takes the old one's place.
        await().atMost(PATIENCE).until(() -> status().orElseThrow().endpoint().equals(other.endpoint()));
        assertThat(subscribers.statuses()).singleElement()
                .satisfies(s -> assertThat(s.endpoint()).isEqualTo(other.endpoint()));
    }

    @Test
    void aWorkerResubscribedElsewhereKeepsItsOldStatusUntilTheNewStreamTakesItsPlace() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        publisher.store(1, null, tokens(100, 16), 16);
        awaitInSequence();
        TestPublisher other = publisher(true, false);

        subscribers.subscribe(WORKER, MODEL, other.asEndpoint());

        // Read as the routing and GET /kv_events read it, from another thread, until the new stream shows.
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(1)).until(() -> status()
                .orElseThrow(() -> new AssertionError("the worker went missing"))
                .endpoint().equals(other.endpoint()));
        other.awaitSubscriber();
        other.store(5, null, tokens(900, 16), 16);
        await().atMost(PATIENCE).until(() -> lookup(tokens(900, 16)).cachedTokens(WORKER) == 16);
        assertThat(lookup(tokens(100, 16)).cachedTokens(WORKER)).as("the old source's blocks").isZero();
    }

    @Test
    void subscribingAWorkerAgainAtTheSameEndpointKeepsItsStreamAndView() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        storeFirst(publisher);

        subscribers.subscribe(WORKER, MODEL, publisher.asEndpoint());
        publisher.store(2, 1L, tokens(116, 16), 16);

        await().atMost(PATIENCE).until(() -> lookup(tokens(100, 32)).cachedTokens(WORKER) == 32);
        // A batch is counted just after it is applied.
        await().atMost(PATIENCE).until(() -> counter("homing_kv_event_batches", "outcome", "applied") == 2);
    }

    @Test
    void aWorkerWhoseEngineReportsNoEventsIsSubscribedToNothingAndReportedNone() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(1));
        publisher.store(1, null, tokens(100, 16), 16);
        awaitInSequence();

        subscribers.withoutEvents(WORKER, MODEL, KvEventSubscribers.ENGINE_REPORTS_NO_KV_EVENTS, () -> true);

        await().atMost(PATIENCE).until(() -> status().orElseThrow().endpoint() == null);
        assertThat(status().orElseThrow()).satisfies(s -> {
            assertThat(s.state()).isEqualTo(State.NONE);
            assertThat(s.reason()).isEqualTo("engine_reports_no_kv_events");
        });
        // The old stream's view goes just after the new status shows.
        await().atMost(PATIENCE).until(() -> !lookup(tokens(100, 16)).exact(WORKER)
                && subscribers.views(MODEL).stats().engineBlocks() == 0);
    }

    /**
     * One engine's usage counts prompts otherwise: it is set aside, and so is a worker of the same model not checked
     * yet (its look-ups may match nothing either, so that no request would reach it to be checked); a worker with
     * enough agreeing checks of its own keeps its view.
     */
    @Test
    void aWorkerWhoseEngineCountsOtherwiseIsSetAsideAndSoIsOneOfItsModelNotCheckedYet() {
        TestPublisher publisher = subscribed(true, false, Duration.ofSeconds(30));
        String unchecked = "http://127.0.0.1:2";
        String agreeing = "http://127.0.0.1:3";
        subscribers.subscribe(unchecked, MODEL, publisher.asEndpoint());
        subscribers.subscribe(agreeing, MODEL, publisher.asEndpoint());
        await().atMost(PATIENCE).until(() -> subscribers.statuses().size() == 3);
        assertThat(subscribers.tokensUnsettled(MODEL)).as("no verdict yet").isTrue();
        for (int i = 0; i < 4; i++) {
            subscribers.tokensChecked(agreeing, 500, 500);
        }
        assertThat(subscribers.tokensUnsettled(MODEL)).isFalse();
        assertThat(subscribers.tokensDiffer(MODEL)).isFalse();

        for (int i = 0; i < 12; i++) {
            subscribers.tokensChecked(WORKER, 290, 256);
        }

        await().atMost(PATIENCE).until(() -> "tokens_differ".equals(reason(WORKER))
                && "tokens_differ".equals(reason(unchecked)));
        assertThat(status().orElseThrow().state()).isEqualTo(State.STALE);
        assertThat(status().orElseThrow().tokenChecks().lastDifference().engineTokens()).isEqualTo(256);
        assertThat(reason(agreeing)).isNotEqualTo("tokens_differ");
        assertThat(subscribers.tokensDiffer(MODEL)).isTrue();
        assertThat(counter("homing_kv_prompt_token_checks", "result", "differ")).isEqualTo(12);
    }

    private String reason(String worker) {
        return subscribers.statuses().stream().filter(s -> s.worker().equals(worker)).findFirst().orElseThrow()
                .reason();
    }
}
