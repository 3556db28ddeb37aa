package dev.homing.gateway.discovery;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

class PodLedgerTest {

    private static PodSnapshot serving(String key, String url) {
        return new PodSnapshot(key, url, null, PodSnapshot.Status.SERVING);
    }

    private static PodSnapshot notReady(String key) {
        return new PodSnapshot(key, null, null, PodSnapshot.Status.NOT_READY);
    }

    @Test
    void aPodThatStartsServingIsAddedOnceAndDrainedWhenDeleted() {
        PodLedger ledger = new PodLedger();

        assertThat(ledger.onEvent("ns/a", notReady("ns/a"))).isEmpty();
        assertThat(ledger.onEvent("ns/a", serving("ns/a", "http://10.0.0.1:80")))
                .extracting(PodLedger.Change::kind, PodLedger.Change::url)
                .containsExactly(tuple(PodLedger.Change.Kind.ADD, "http://10.0.0.1:80"));
        assertThat(ledger.onEvent("ns/a", serving("ns/a", "http://10.0.0.1:80"))).isEmpty();
        assertThat(ledger.onEvent("ns/a", null)).singleElement()
                .satisfies(c -> assertThat(c.reason()).isEqualTo("deleted"));
    }

    @Test
    void aPodThatMovesToAnotherIpDrainsTheOldWorkerBeforeAddingTheNew() {
        PodLedger ledger = new PodLedger();
        ledger.onEvent("ns/a", serving("ns/a", "http://10.0.0.1:80"));

        List<PodLedger.Change> changes = ledger.onEvent("ns/a", serving("ns/a", "http://10.0.0.2:80"));

        assertThat(changes).extracting(PodLedger.Change::kind, PodLedger.Change::url, PodLedger.Change::reason)
                .containsExactly(
                        tuple(PodLedger.Change.Kind.DRAIN, "http://10.0.0.1:80", "moved"),
                        tuple(PodLedger.Change.Kind.ADD, "http://10.0.0.2:80", null));
    }

    @Test
    void aListCorrectsADeletionTheWatchMissed() {
        PodLedger ledger = new PodLedger();
        ledger.onEvent("ns/a", serving("ns/a", "http://10.0.0.1:80"));
        ledger.onEvent("ns/b", serving("ns/b", "http://10.0.0.2:80"));

        PodLedger.Reconciliation result = ledger.reconcile(Map.of("ns/a", serving("ns/a", "http://10.0.0.1:80")),
                ledger.mark());

        assertThat(result.corrections()).singleElement()
                .satisfies(c -> assertThat(c.missed()).isEqualTo(PodLedger.Missed.DELETE));
        assertThat(result.changes()).singleElement()
                .satisfies(c -> assertThat(c.url()).isEqualTo("http://10.0.0.2:80"));
        assertThat(ledger.serving()).extracting(PodSnapshot::key).containsExactly("ns/a");
    }

    @Test
    void aListReadBeforeAnEventDoesNotUndoIt() {
        PodLedger ledger = new PodLedger();
        ledger.onEvent("ns/a", serving("ns/a", "http://10.0.0.1:80"));
        long mark = ledger.mark();
        // The list is read; meanwhile the watch reports the deletion, and a new pod.
        ledger.onEvent("ns/a", null);
        ledger.onEvent("ns/b", serving("ns/b", "http://10.0.0.2:80"));

        PodLedger.Reconciliation result = ledger.reconcile(Map.of("ns/a", serving("ns/a", "http://10.0.0.1:80")),
                mark);

        assertThat(result.corrections()).isEmpty();
        assertThat(result.changes()).isEmpty();
        assertThat(ledger.serving()).extracting(PodSnapshot::key).containsExactly("ns/b");
    }

    @Test
    void aCorrectionIsCountedOnce() {
        PodLedger ledger = new PodLedger();
        Map<String, PodSnapshot> listed = Map.of("ns/a", serving("ns/a", "http://10.0.0.1:80"));

        assertThat(ledger.reconcile(listed, ledger.mark()).corrections()).hasSize(1);
        assertThat(ledger.reconcile(listed, ledger.mark()).corrections()).isEmpty();
    }

    /**
     * Random news against a naive model: pods change on the API server, the watch delivers each change or loses it,
     * lists are read (some while events keep coming). The workers the changes build always match what the ledger
     * believes, and after a list with nothing in flight the belief is the API server's truth.
     */
    @Test
    void randomNewsKeepsTheWorkersEqualToTheBeliefAndAQuietListMakesItTheTruth() {
        for (long seed = 1; seed <= 200; seed++) {
            Random random = new Random(seed);
            PodLedger ledger = new PodLedger();
            Map<String, PodSnapshot> truth = new HashMap<>();
            Set<String> workers = new HashSet<>();
            for (int step = 0; step < 300; step++) {
                String key = "ns/p" + random.nextInt(6);
                PodSnapshot next = switch (random.nextInt(4)) {
                    case 0 -> null;
                    case 1 -> notReady(key);
                    default -> serving(key, "http://10.0.0." + random.nextInt(4) + key.substring(4) + ":80");
                };
                if (next == null) {
                    truth.remove(key);
                } else {
                    truth.put(key, next);
                }
                if (random.nextInt(4) != 0) {
                    apply(workers, ledger.onEvent(key, next));
                }
                if (random.nextInt(10) == 0) {
                    long mark = ledger.mark();
                    Map<String, PodSnapshot> listed = Map.copyOf(truth);
                    boolean eventMeanwhile = random.nextBoolean();
                    if (eventMeanwhile) {
                        truth.remove(key);
                        apply(workers, ledger.onEvent(key, null));
                    }
                    apply(workers, ledger.reconcile(listed, mark).changes());
                    if (!eventMeanwhile) {
                        assertThat(believed(ledger)).as("seed %d step %d", seed, step).isEqualTo(servingUrls(truth));
                    }
                }
                assertThat(workers).as("seed %d step %d", seed, step).isEqualTo(believed(ledger));
            }
        }
    }

    private static void apply(Set<String> workers, List<PodLedger.Change> changes) {
        for (PodLedger.Change change : changes) {
            if (change.kind() == PodLedger.Change.Kind.ADD) {
                assertThat(workers.add(change.url())).as("added twice: %s", change.url()).isTrue();
            } else {
                assertThat(workers.remove(change.url())).as("drained unknown: %s", change.url()).isTrue();
            }
        }
    }

    private static Set<String> believed(PodLedger ledger) {
        Set<String> urls = new HashSet<>();
        ledger.serving().forEach(p -> urls.add(p.url()));
        return urls;
    }

    private static Set<String> servingUrls(Map<String, PodSnapshot> truth) {
        Set<String> urls = new HashSet<>();
        truth.values().stream().filter(PodSnapshot::serving).forEach(p -> urls.add(p.url()));
        return urls;
    }
}
