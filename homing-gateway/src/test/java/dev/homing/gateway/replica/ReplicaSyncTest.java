package dev.homing.gateway.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.NatsServer;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gateway replicas kept in step through a real {@code nats-server}, in front of real simulated engines over loopback:
 * a conversation's next turn, sent to another replica, goes where the first replica put its prefix.
 */
class ReplicaSyncTest {

    private static final Pattern CACHED = Pattern.compile("\"cached_tokens\":(\\d+)");
    private static final int CONVERSATIONS = 6;
    /** Cached tokens beyond a few words the openings share: the engine held the conversation's own opening. */
    private static final int HIT = 100;
    private static final String PUBLISHED = "homing_replica_events_published_total";
    private static final String RECEIVED = "homing_replica_events_received_total";

    private NatsServer nats;
    private final List<SimEngineServer> engines = new ArrayList<>();
    private final List<RunningGateway> gateways = new ArrayList<>();

    @BeforeEach
    void startBusAndEngines() {
        nats = NatsServer.start();
        for (int i = 0; i < 4; i++) {
            engines.add(SimEngineServer.start(TestVertx.get(), SimEngines.options(SimEngines.config())));
        }
    }

    @AfterEach
    void stopAll() {
        gateways.forEach(RunningGateway::close);
        engines.forEach(SimEngineServer::close);
        if (nats != null) { // null when no nats-server is installed and the test was skipped
            nats.close();
        }
    }

    private Config replicaConfig(List<String> urls) {
        return RunningGateway.config(List.of()).with(Settings.WORKER_URLS, engines.stream().map(SimEngineServer::url)
                .toList()).with(Settings.REPLICA_SYNC, urls);
    }

    private RunningGateway replica() {
        RunningGateway gateway = RunningGateway.start(replicaConfig(List.of(nats.url())));
        gateways.add(gateway);
        return gateway;
    }

    /** A conversation's first turn: a long opening of its own, so that it is in one engine's cache alone. */
    private static String opening(String name) {
        return ("Conversation " + name + " begins with a long description of its own subject, line after line. ")
                .repeat(24);
    }

    private static int cachedTokens(RunningGateway gateway, String prompt) {
        var response = gateway.post("/v1/completions", "{\"prompt\":\"" + prompt + "\",\"max_tokens\":2}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Matcher m = CACHED.matcher(response.body());
        assertThat(m.find()).as(response.body()).isTrue();
        return Integer.parseInt(m.group(1));
    }

    /**
     * Sends every conversation's first turn to {@code first}, then waits until each of {@code others} (siblings that
     * hear no replica but {@code first}) applied all that {@code first} published since, at least an event a turn.
     */
    private static void openConversations(String round, RunningGateway first, RunningGateway... others) {
        // Load reports go out every 250 ms and count as events too: a count of events alone can be reached before
        // any turn arrived. Each sibling's count is read first, so what it hears from then on is what follows.
        double[] heardBefore = new double[others.length];
        for (int o = 0; o < others.length; o++) {
            heardBefore[o] = others[o].metric(RECEIVED);
        }
        double publishedBefore = first.metric(PUBLISHED);
        for (int c = 0; c < CONVERSATIONS; c++) {
            assertThat(cachedTokens(first, opening(round + c))).isLessThan(HIT);
        }
        for (int o = 0; o < others.length; o++) {
            RunningGateway other = others[o];
            double before = heardBefore[o];
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                double published = first.metric(PUBLISHED) - publishedBefore;
                return published >= CONVERSATIONS && other.metric(RECEIVED) - before >= published;
            });
        }
    }

    /** How many conversations' second turns, sent to {@code second}, found their opening in the engine's cache. */
    private static int secondTurnsThatHit(String round, RunningGateway second) {
        int hits = 0;
        for (int c = 0; c < CONVERSATIONS; c++) {
            String prompt = opening(round + c) + " And now the second question of this conversation, please.";
            if (cachedTokens(second, prompt) >= HIT) {
                hits++;
            }
        }
        return hits;
    }

    /** Waits until every one of {@code replicas} reports itself warm. */
    private static void awaitWarm(RunningGateway... replicas) {
        await().atMost(Duration.ofSeconds(60)).until(() -> Arrays.stream(replicas)
                .allMatch(replica -> replica.metric("homing_replica_warm") == 1));
    }

    @Test
    void aConversationsNextTurnSentToAnotherReplicaGoesWhereItsPrefixIs() {
        RunningGateway a = replica();
        RunningGateway b = replica();
        awaitWarm(a, b);

        openConversations("in-step-", a, b);

        assertThat(secondTurnsThatHit("in-step-", b)).isEqualTo(CONVERSATIONS);
        assertThat(a.metric("homing_replica_published_bytes_total")).isPositive();
    }

    @Test
    void aReplicaStartedLateTakesAWarmSiblingsSnapshotAndHitsWhatTheSiblingPlaced() {
        RunningGateway a = replica();
        awaitWarm(a);
        openConversations("late-", a);

        RunningGateway late = replica();
        awaitWarm(late);

        assertThat(late.metric("homing_replica_snapshots_total{role=\"taken\"}")).isEqualTo(1);
        assertThat(secondTurnsThatHit("late-", late)).isEqualTo(CONVERSATIONS);
    }

    @Test
    void aReplicaWhoseSnapshotArrivesBeforeItsWorkersRegisterKeepsItForThem() {
        RunningGateway a = replica();
        awaitWarm(a);
        openConversations("early-", a);

        RunningGateway late = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.REPLICA_SYNC, List.of(nats.url())));
        gateways.add(late);
        awaitWarm(late);
        assertThat(late.metric("homing_replica_snapshots_total{role=\"taken\"}")).isEqualTo(1);
        for (SimEngineServer engine : engines) {
            assertThat(late.post("/workers", "{\"url\":\"" + engine.url() + "\"}").statusCode()).isLessThan(300);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> late.gateway().registry().healthyCount() == engines.size());

        assertThat(secondTurnsThatHit("early-", late)).isEqualTo(CONVERSATIONS);
    }

    @Test
    void withoutTheBusEveryRequestStillRoutesAndTheReplicasFindEachOtherAgainWhenItIsBack() {
        RunningGateway a = replica();
        RunningGateway b = replica();
        awaitWarm(a, b);

        nats.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> a.metric("homing_replica_sync_connected") == 0
                && b.metric("homing_replica_sync_connected") == 0);
        for (int c = 0; c < CONVERSATIONS; c++) {
            cachedTokens(c % 2 == 0 ? a : b, opening("alone-" + c)); // answered: 200, checked inside
        }
        assertThat(a.metric("homing_replica_sync_transitions_total{state=\"disconnected\"}")).isEqualTo(1);

        nats.restart();
        await().atMost(Duration.ofSeconds(30)).until(() -> a.metric("homing_replica_sync_connected") == 1
                && b.metric("homing_replica_sync_connected") == 1);
        double heard = b.metric("homing_replica_events_received_total");
        for (int c = 0; c < CONVERSATIONS; c++) {
            assertThat(cachedTokens(a, opening("back-" + c))).isLessThan(HIT);
        }
        // Right after a reconnection the server may not yet hold the sibling's renewed subscription, so the first
        // events can miss it; each turn sent again is placed (and published) again, until the sibling has heard.
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
                if (b.metric("homing_replica_events_received_total") >= heard + CONVERSATIONS) {
                    return true;
                }
                for (int c = 0; c < CONVERSATIONS; c++) {
                    cachedTokens(a, opening("back-" + c));
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            // What tells a replica that cannot send (a's frames counted, none heard) from one that cannot hear.
            throw new AssertionError("replica a published " + a.metric("homing_replica_events_published_total")
                    + " events in all and dropped " + a.metric("homing_replica_events_dropped_total") + "; b heard "
                    + (b.metric("homing_replica_events_received_total") - heard) + " since the bus came back; "
                    + "phases: a " + a.gateway().replicas().phase() + ", b " + b.gateway().replicas().phase(), e);
        }
        assertThat(secondTurnsThatHit("back-", b)).isEqualTo(CONVERSATIONS);
    }

    @Test
    void replicasStartedWhileTheBusIsDownJoinItWhenItComesUp() {
        nats.stop();
        RunningGateway a = replica();
        RunningGateway b = replica();
        assertThat(cachedTokens(a, opening("unreached-0"))).isLessThan(HIT); // routes alone meanwhile

        nats.restart();
        awaitWarm(a, b);
        openConversations("joined-", a, b);

        assertThat(secondTurnsThatHit("joined-", b)).isEqualTo(CONVERSATIONS);
    }

    @Test
    void aReplicaConnectsWithCredentialsFromAFileToAServerThatAsksForThem(@TempDir Path dir) throws IOException {
        nats.close();
        nats = NatsServer.start("--user", "homing", "--pass", "s3cret");
        Path credentials = Files.writeString(dir.resolve("nats.credentials"), "homing:s3cret\n");
        RunningGateway gateway = RunningGateway.start(replicaConfig(List.of(nats.url()))
                .with(Settings.REPLICA_SYNC_CREDENTIALS, credentials));
        gateways.add(gateway);

        await().atMost(Duration.ofSeconds(60)).until(() -> gateway.metric("homing_replica_sync_connected") == 1);
    }
}
