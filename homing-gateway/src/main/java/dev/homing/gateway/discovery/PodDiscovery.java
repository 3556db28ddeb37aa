package dev.homing.gateway.discovery;

import dev.homing.gateway.workers.TooManyWorkersException;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Kubernetes pods as workers, kept true to the API server. A pod that serves ({@link PodSnapshot}) gets a worker; a
 * pod that is deleted, loses readiness or gets a deletion timestamp has its worker drained (no new requests; those
 * in flight finish within the drain grace), then removed. Three mechanisms keep the workers from going stale:
 * <ol>
 *   <li>A fabric8 informer watches the selector's pods; each event updates the {@link PodLedger} at once.</li>
 *   <li>Every {@code relistInterval} the whole pod list is read from the API server (a consistent read, not the
 *       watch's cache) and the ledger reconciled with it: each difference is an event the watch missed, and is
 *       corrected, counted ({@code homing_discovery_reconcile_corrections_total}) and logged in one line.</li>
 *   <li>A watch with no sign of life (no event, and no bookmark moving its resource version) for
 *       {@code watchSilence}, or whose news a list had to correct, is replaced by a new informer.</li>
 * </ol>
 *
 * <p>Threading: one thread ({@code homing-discovery}) owns the ledger and the workers discovery registered;
 * informer callbacks, list results and drain endings are posted to it, and events of a replaced informer are
 * dropped by their generation. A list is read on a virtual thread of its own so that events keep being applied
 * meanwhile; the ledger's marks keep such a list from undoing them. A correction counts as a missed event only when
 * the current watch had finished its first list before the list was taken (before that, the list is just the first
 * news) and the informer's own cache disagrees with the list (else the event is only on its way here).
 *
 * <p>An unreachable API server stops nothing: the gateway serves its static workers, the informer retries with
 * fabric8's backoff (1 s doubling to 32 s), and lists fail and are counted until it answers. A URL that is already a
 * worker not registered by discovery (a {@code --worker-urls} entry) is left to its owner.
 */
public final class PodDiscovery implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PodDiscovery.class);
    /** Silence is looked for five times per bound, so a silent watch is replaced at most a fifth of it late. */
    private static final int SILENCE_CHECKS_PER_BOUND = 5;

    private final DiscoverySettings settings;
    private final KubernetesClient client;
    private final WorkerLifecycle lifecycle;
    private final WorkerRegistry registry;
    private final DiscoveryMetrics metrics;
    private final String workerApiKey;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            task -> Thread.ofPlatform().name("homing-discovery").daemon().unstarted(task));
    private final PodLedger ledger = new PodLedger();
    /** The workers discovery registered, by URL. */
    private final Map<String, Worker> owned = new HashMap<>();
    /** URLs of pods that another owner's worker already holds, warned of once. */
    private final Set<String> foreign = new HashSet<>();
    private SharedIndexInformer<Pod> informer;
    /** Counts informers; events and endings of an older one are dropped. */
    private int generation;
    /** The current informer has finished its first list (volatile: the status page reads it). */
    private volatile boolean synced;
    private long lastSignalNanos;
    private String lastResourceVersion;
    private boolean listing;
    private volatile boolean closed;

    private PodDiscovery(DiscoverySettings settings, Vertx vertx, WorkerLifecycle lifecycle, WorkerRegistry registry,
                         PrometheusRegistry prometheus, String workerApiKey) {
        this.settings = settings;
        this.client = new KubernetesClientBuilder().withConfig(clientConfig(settings))
                .withHttpClientFactory(new Vertx5HttpClientFactory(vertx)).build();
        this.metrics = new DiscoveryMetrics(prometheus);
        this.lifecycle = lifecycle;
        this.registry = registry;
        this.workerApiKey = workerApiKey;
    }

    /**
     * Starts discovering in the background; returns at once, whether or not the API server answers.
     *
     * @param vertx        the gateway's Vert.x: the Kubernetes client's HTTP runs on its event loops
     * @param workerApiKey sent to discovered workers as Bearer (the gateway's {@code --api-key}), or null
     * @throws IllegalArgumentException for invalid settings
     */
    public static PodDiscovery start(DiscoverySettings settings, Vertx vertx, WorkerLifecycle lifecycle,
                                     WorkerRegistry registry, PrometheusRegistry prometheus, String workerApiKey) {
        PodDiscovery discovery = new PodDiscovery(settings, vertx, lifecycle, registry, prometheus, workerApiKey);
        discovery.post(() -> discovery.watch(null));
        long relistMs = settings.relistInterval().toMillis();
        discovery.thread.scheduleWithFixedDelay(() -> discovery.guarded(discovery::relist), relistMs, relistMs,
                TimeUnit.MILLISECONDS);
        long checkMs = Math.max(1, settings.watchSilence().toMillis() / SILENCE_CHECKS_PER_BOUND);
        discovery.thread.scheduleWithFixedDelay(() -> discovery.guarded(discovery::checkSilence), checkMs, checkMs,
                TimeUnit.MILLISECONDS);
        LOG.info("discovering workers from pods labelled {} in {} on port {} (full list every {} s)",
                settings.roles() == null ? settings.selector()
                        : "prefill " + settings.roles().prefill() + " / decode " + settings.roles().decode(),
                settings.namespace() == null ? "every namespace" : settings.namespace(),
                settings.port(), settings.relistInterval().toSeconds());
        return discovery;
    }

    /**
     * In-cluster or kubeconfig credentials by default; a given API server URL is used as it is, with none. The client
     * does not retry a failed request itself (by default it would, ten times over about 20 s): the informer's backoff
     * and the next re-list are the retries, and each failure is counted and logged when it happens.
     */
    static Config clientConfig(DiscoverySettings settings) {
        Config config = settings.apiServer() == null ? Config.autoConfigure(null)
                : new ConfigBuilder(Config.empty()).withMasterUrl(settings.apiServer()).build();
        config.setRequestRetryBackoffLimit(0);
        return config;
    }

    private FilterWatchListDeletable<Pod, PodList, PodResource> pods() {
        return settings.namespace() == null
                ? client.pods().inAnyNamespace().withLabels(settings.watched())
                : client.pods().inNamespace(settings.namespace()).withLabels(settings.watched());
    }

    /** Starts a new informer, stopping the current one first if {@code restartReason} is given. */
    private void watch(String restartReason) {
        if (closed) {
            return;
        }
        if (informer != null) {
            informer.stop();
            metrics.watchRestarted(restartReason);
            LOG.warn("discovery: restarting the pod watch ({})", restartReason.equals("silent")
                    ? "nothing from it for " + settings.watchSilence().toSeconds() + " s"
                    : "a full list showed events it had missed");
        }
        int gen = ++generation;
        synced = false;
        lastSignalNanos = System.nanoTime();
        lastResourceVersion = null;
        SharedIndexInformer<Pod> next = pods().runnableInformer(0);
        next.exceptionHandler((started, error) -> {
            metrics.watchError();
            LOG.warn("discovery: the pod watch failed, retrying: {}", error.toString());
            return true;
        });
        next.addEventHandler(new ResourceEventHandler<Pod>() {
            @Override
            public void onAdd(Pod pod) {
                post(() -> onEvent(gen, pod, false));
            }

            @Override
            public void onUpdate(Pod before, Pod pod) {
                post(() -> onEvent(gen, pod, false));
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                post(() -> onEvent(gen, pod, true));
            }
        });
        informer = next;
        next.start().whenComplete((ignored, error) -> post(() -> {
            if (error == null && gen == generation) {
                synced = true;
                lastSignalNanos = System.nanoTime();
                metrics.fresh(System.currentTimeMillis());
            }
        }));
    }

    private void onEvent(int gen, Pod pod, boolean deleted) {
        if (gen != generation) {
            return;
        }
        lastSignalNanos = System.nanoTime();
        apply(ledger.onEvent(PodSnapshot.keyOf(pod), deleted ? null : PodSnapshot.of(pod, settings)));
    }

    private void checkSilence() {
        if (informer == null) {
            return;
        }
        String version = informer.lastSyncResourceVersion();
        if (version != null && !version.equals(lastResourceVersion)) {
            lastResourceVersion = version;
            lastSignalNanos = System.nanoTime();
        }
        if (System.nanoTime() - lastSignalNanos > settings.watchSilence().toNanos()) {
            watch("silent");
        }
    }

    private void relist() {
        if (listing || closed) {
            return;
        }
        listing = true;
        long mark = ledger.mark();
        boolean watchSynced = synced;
        int gen = generation;
        Thread.ofVirtual().name("homing-discovery-list").start(() -> {
            try {
                List<Pod> pods = pods().list().getItems();
                post(() -> reconcile(pods, mark, watchSynced, gen));
            } catch (RuntimeException e) {
                post(() -> {
                    listing = false;
                    metrics.listFailed();
                    LOG.warn("discovery: listing pods failed; the next try is in {} s: {}",
                            settings.relistInterval().toSeconds(), e.toString());
                });
            }
        });
    }

    private void reconcile(List<Pod> pods, long mark, boolean watchSynced, int gen) {
        listing = false;
        metrics.listed(System.currentTimeMillis());
        Map<String, PodSnapshot> listed = new LinkedHashMap<>();
        for (Pod pod : pods) {
            PodSnapshot snapshot = PodSnapshot.of(pod, settings);
            listed.put(snapshot.key(), snapshot);
        }
        PodLedger.Reconciliation result = ledger.reconcile(listed, mark);
        boolean watchMissed = false;
        for (PodLedger.Correction correction : result.corrections()) {
            if (watchSynced && gen == generation && !Objects.equals(inWatchCache(correction.key()), correction.now())) {
                watchMissed = true;
                metrics.corrected(correction.missed());
                LOG.warn("discovery: the watch missed the {} of pod {} ({} -> {}); corrected from the pod list",
                        correction.missed().label(), correction.key(), describe(correction.before()),
                        describe(correction.now()));
            }
        }
        apply(result.changes());
        for (PodSnapshot pod : ledger.serving()) {
            Worker mine = owned.get(pod.url());
            if (mine == null || mine.state() == Worker.State.REMOVED) {
                add(pod);
            }
        }
        if (watchMissed) {
            watch("missed_event");
        }
    }

    /**
     * The pod as the current informer's cache holds it (null when absent). A cache that already agrees with the list
     * holds an event still on its way to this thread: not a miss.
     */
    private PodSnapshot inWatchCache(String key) {
        Pod pod = informer.getStore().getByKey(key);
        return pod == null ? null : PodSnapshot.of(pod, settings);
    }

    private static String describe(PodSnapshot pod) {
        return pod == null ? "gone" : pod.serving() ? "serving at " + pod.url() : pod.status().label();
    }

    private void apply(List<PodLedger.Change> changes) {
        for (PodLedger.Change change : changes) {
            if (change.kind() == PodLedger.Change.Kind.ADD) {
                add(change.pod());
            } else {
                drain(change);
            }
        }
        metrics.pods(ledger.countByStatus());
    }

    private void add(PodSnapshot pod) {
        String url = pod.url();
        Worker mine = owned.get(url);
        if (mine != null && mine.state() == Worker.State.DRAINING && registry.resume(mine)) {
            LOG.info("discovery: pod {} serves again; worker {} takes traffic again", pod.key(), url);
            return;
        }
        if (mine != null && mine.state() != Worker.State.REMOVED) {
            return;
        }
        if (registry.find(url) != null) {
            if (foreign.add(url)) {
                LOG.warn("discovery: pod {} serves at {}, which is already a worker of another origin; left as it is",
                        pod.key(), url);
            }
            return;
        }
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("source", "kubernetes");
        labels.put("pod", pod.key());
        Worker worker;
        try {
            worker = lifecycle.register(new WorkerSpec(url, workerApiKey, null, labels,
                    WorkerSpec.DEFAULT_PRIORITY, pod.role(), bootstrapPort(pod))).worker();
        } catch (TooManyWorkersException full) {
            // The next list tries again, once a worker has gone.
            LOG.warn("discovery: pod {} serves at {}, left out: {}", pod.key(), url, full.getMessage());
            return;
        }
        owned.put(url, worker);
        foreign.remove(url);
        metrics.added();
        LOG.info("discovery: pod {} serves; registering {} worker {}", pod.key(), pod.role().label(), url);
    }

    /** A prefill pod's bootstrap port from its annotation; null (learnt from the worker) when absent or unreadable. */
    private static Integer bootstrapPort(PodSnapshot pod) {
        if (pod.bootstrapPort() == null) {
            return null;
        }
        try {
            int port = Integer.parseInt(pod.bootstrapPort().strip());
            if (port >= 1 && port <= 65_535) {
                return port;
            }
        } catch (NumberFormatException unreadable) {
            // Logged below, as a value out of range is.
        }
        LOG.warn("discovery: pod {} has bootstrap port '{}', not a port; its worker's server info will say",
                pod.key(), pod.bootstrapPort());
        return null;
    }

    private void drain(PodLedger.Change change) {
        String url = change.url();
        Worker mine = owned.get(url);
        if (mine == null || mine.state() == Worker.State.REMOVED || mine.state() == Worker.State.DRAINING) {
            return;
        }
        metrics.drained(change.reason());
        LOG.info("discovery: pod {} {}; draining worker {} ({} request(s) in flight)", change.pod().key(),
                change.reason().replace('_', ' '), url, mine.inFlight());
        lifecycle.drain(mine, settings.drainGrace()).onComplete(done -> post(() -> {
            if (mine.state() == Worker.State.REMOVED) {
                metrics.removed();
                owned.remove(url, mine);
                LOG.info("discovery: worker {} removed", url);
            }
        }));
    }

    /** Runs {@code task} on the discovery thread; nothing once closed. */
    private void post(Runnable task) {
        if (closed) {
            return;
        }
        try {
            thread.execute(() -> guarded(task));
        } catch (RejectedExecutionException closing) {
            // Closed meanwhile: the news no longer matters.
        }
    }

    /** A failure in one task is logged and does not stop the periodic ones. */
    private void guarded(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.error("discovery: unexpected failure", e);
        }
    }

    /**
     * What the status page shows of discovery.
     *
     * @param synced whether the current pod watch has had its first full list
     * @param pods   the pods matching the selector, by what they mean to the gateway ({@code serving}, ...)
     */
    public record Status(boolean synced, Map<String, Integer> pods) {
    }

    public Status status() {
        Map<String, Integer> pods = new TreeMap<>();
        metrics.podCounts().forEach((status, n) -> pods.put(status.label(), n));
        return new Status(synced, pods);
    }

    /** Stops watching and listing; the workers stay as they are (the gateway is closing). */
    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (informer != null) {
            informer.stop();
        }
        client.close();
    }
}
