package dev.homing.gateway.workers;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.gateway.http.ApiError;

import java.net.InetAddress;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Every worker the gateway knows, grouped into one {@link ModelPool} per model and {@link WorkerRole}, each role with
 * the policy named for it. Every worker joins its pool through {@link #activate}, whichever way it arrived (flags,
 * worker API, discovery), so every pool's policy knows every worker of it. Mutations (add, activate, drain, resume,
 * remove) are rare and serialised by this object's lock; the data plane reads without locking (concurrent maps and
 * copy-on-write pool lists). Thread-safe.
 */
public final class WorkerRegistry {

    /** Workers an error answer names when none is available; the rest are counted. */
    public static final int UNAVAILABLE_NAMED = 3;

    private final Map<WorkerRole, String> policyNames;
    private final PolicyConfig policyConfig;
    /** Most workers registered at once, pending ones included ({@code --max-workers}). */
    private final int maxWorkers;
    private final Map<String, Worker> byId = new ConcurrentHashMap<>();
    /** By role, then by model; every role's map exists from the start. */
    private final Map<WorkerRole, Map<String, ModelPool>> pools = new EnumMap<>(WorkerRole.class);
    /** Told of each removed worker, so state kept per worker elsewhere (its circuit breaker) goes with it. */
    private volatile java.util.function.Consumer<Worker> removalListener = w -> { };
    private volatile java.util.function.Consumer<Worker> activationListener = w -> { };
    /** Told of each model pool when it is created, before its first worker joins it. */
    private volatile java.util.function.Consumer<ModelPool> poolListener = p -> { };
    /** Replaces the policy by role's name for each new pool (a test's own); null: by name, with a fresh seed. */
    private volatile Supplier<RoutingPolicy> policySource;

    /** Every role routed by {@code policyName}: a gateway of regular workers. */
    public WorkerRegistry(String policyName, PolicyConfig policyConfig) {
        this(Map.of(WorkerRole.REGULAR, policyName, WorkerRole.PREFILL, policyName, WorkerRole.DECODE, policyName),
                policyConfig);
    }

    /** Each role routed by the policy named for it, with no bound on the number of workers. */
    public WorkerRegistry(Map<WorkerRole, String> policyNames, PolicyConfig policyConfig) {
        this(policyNames, policyConfig, Integer.MAX_VALUE);
    }

    /** Each role routed by the policy named for it; at most {@code maxWorkers} registered at once. */
    public WorkerRegistry(Map<WorkerRole, String> policyNames, PolicyConfig policyConfig, int maxWorkers) {
        this.policyNames = new EnumMap<>(policyNames);
        this.policyConfig = policyConfig;
        this.maxWorkers = maxWorkers;
        for (WorkerRole role : WorkerRole.values()) {
            pools.put(role, new ConcurrentHashMap<>());
            // Fail at start-up, not on the first worker, if a policy cannot be built.
            PolicyFactory.create(policyName(role), policyConfig, System::nanoTime);
        }
    }

    /** The policy regular workers are routed by. */
    public String policyName() {
        return policyName(WorkerRole.REGULAR);
    }

    public String policyName(WorkerRole role) {
        return policyNames.get(role);
    }

    /**
     * Registers a worker that takes no traffic until {@link #activate}.
     *
     * @throws IllegalArgumentException if a worker with that URL is already registered
     * @throws TooManyWorkersException  if the registry already holds {@code --max-workers} workers
     */
    public synchronized Worker register(WorkerSpec spec) {
        return register(spec, null);
    }

    /**
     * As {@link #register(WorkerSpec)}, its connections going to {@code address} (the one its host was checked at),
     * or, when null, to the address its host resolves to when it is probed first.
     */
    public synchronized Worker register(WorkerSpec spec, InetAddress address) {
        for (Worker w : byId.values()) {
            if (w.url().equals(spec.url())) {
                throw new IllegalArgumentException("worker " + spec.url() + " is already registered as " + w.id());
            }
        }
        if (byId.size() >= maxWorkers) {
            throw new TooManyWorkersException(maxWorkers);
        }
        Worker worker = new Worker(UUID.randomUUID().toString(), spec, address);
        byId.put(worker.id(), worker);
        return worker;
    }

    /** The worker's model is known: it joins the model's pool, healthy, and takes traffic. */
    public synchronized void activate(Worker worker, String model) {
        if (worker.state() != Worker.State.PENDING || byId.get(worker.id()) != worker) {
            return;
        }
        worker.modelId(model);
        worker.healthy(true);
        worker.state(Worker.State.ACTIVE);
        WorkerRole role = worker.role();
        Map<String, ModelPool> rolePools = pools.get(role);
        ModelPool pool = rolePools.get(model);
        if (pool == null) {
            pool = new ModelPool(model, role, newPolicy(role));
            poolListener.accept(pool);
            rolePools.put(model, pool);
        }
        pool.add(worker);
        activationListener.accept(worker);
    }

    private RoutingPolicy newPolicy(WorkerRole role) {
        Supplier<RoutingPolicy> source = policySource;
        return source != null ? source.get()
                : PolicyFactory.create(policyName(role), policyConfig.withSeed(System.nanoTime()), System::nanoTime);
    }

    /**
     * Starts draining a worker: it takes no new traffic from now on, but stays registered (and known to its
     * model's policy) while its requests in flight finish; {@link #removeDrained} then removes it. A worker still
     * pending has nothing in flight and is removed at once. Returns whether the worker is draining now.
     */
    public synchronized boolean drain(Worker worker) {
        if (byId.get(worker.id()) != worker) {
            return false;
        }
        if (worker.state() == Worker.State.PENDING) {
            remove(worker.id());
            return false;
        }
        worker.state(Worker.State.DRAINING);
        return true;
    }

    /** A draining worker takes traffic again (its pod is ready again before the drain ended). Returns whether. */
    public synchronized boolean resume(Worker worker) {
        if (worker.state() != Worker.State.DRAINING || byId.get(worker.id()) != worker) {
            return false;
        }
        worker.state(Worker.State.ACTIVE);
        return true;
    }

    /** Removes the worker if it is still draining (not resumed, not removed meanwhile). Returns whether. */
    public synchronized boolean removeDrained(Worker worker) {
        if (worker.state() != Worker.State.DRAINING || byId.get(worker.id()) != worker) {
            return false;
        }
        remove(worker.id());
        return true;
    }

    /**
     * Removes a worker by id or URL: it takes no new traffic at once, its requests in flight finish, and the
     * model's policy forgets it. Returns the worker, or null if none matched.
     */
    public synchronized Worker remove(String idOrUrl) {
        Worker worker = find(idOrUrl);
        if (worker == null) {
            return null;
        }
        byId.remove(worker.id());
        worker.state(Worker.State.REMOVED);
        String model = worker.modelId();
        Map<String, ModelPool> ofRole = pools.get(worker.role());
        ModelPool pool = model == null ? null : ofRole.get(model);
        if (pool != null && pool.remove(worker)) {
            pool.policy().onWorkerRemoved(worker.url());
            if (pool.workers().isEmpty()) {
                ofRole.remove(model);
            }
        }
        removalListener.accept(worker);
        return worker;
    }

    /**
     * Replaces where the policy of each model (and role) activated from now on comes from: a test that watches what a
     * policy is told gives its own (start the gateway without workers, set this, then add them).
     */
    public void policySource(Supplier<RoutingPolicy> source) {
        this.policySource = source;
    }

    /** Sets the one listener told of each model pool created (the replica sync keeps its policy in step). */
    public void onPoolCreated(java.util.function.Consumer<ModelPool> listener) {
        this.poolListener = listener;
    }

    /** Sets the one listener told of each worker that became active (its model known), under the registry's lock. */
    public void onActivated(java.util.function.Consumer<Worker> listener) {
        this.activationListener = listener;
    }

    /** Sets the one listener told of each removed worker, after it has left the registry. */
    public void onRemoved(java.util.function.Consumer<Worker> listener) {
        this.removalListener = listener;
    }

    /** A worker by id, or by URL; null if unknown. */
    public Worker find(String idOrUrl) {
        Worker worker = byId.get(idOrUrl);
        if (worker != null) {
            return worker;
        }
        String url = idOrUrl.endsWith("/") ? idOrUrl.substring(0, idOrUrl.length() - 1) : idOrUrl;
        for (Worker w : byId.values()) {
            if (w.url().equals(url)) {
                return w;
            }
        }
        return null;
    }

    public Collection<Worker> workers() {
        return List.copyOf(byId.values());
    }

    /** Every pool, of every role. */
    public Collection<ModelPool> pools() {
        return pools.values().stream().flatMap(ofRole -> ofRole.values().stream()).toList();
    }

    /** Models with at least one active worker of any role, sorted. */
    public List<String> models() {
        TreeSet<String> models = new TreeSet<>();
        pools.values().forEach(ofRole -> models.addAll(ofRole.keySet()));
        return List.copyOf(models);
    }

    public long healthyCount() {
        return byId.values().stream().filter(Worker::available).count();
    }

    /**
     * The workers of {@code role} that cannot take a request now (pending, or unhealthy) and why, those of
     * {@code model} or of no model known yet when {@code model} is given: the first {@code limit}, and the count.
     * A walk over every worker: for an error answer or {@code /readiness}, not for a request that is served.
     */
    public UnavailableWorkers unavailable(WorkerRole role, String model, int limit) {
        List<Worker> first = new java.util.ArrayList<>(Math.min(limit, 16));
        int total = 0;
        for (Worker worker : byId.values()) {
            if (worker.role() == role && UnavailableWorkers.counts(worker)
                    && (model == null || worker.modelId() == null || model.equals(worker.modelId()))) {
                if (total++ < limit) {
                    first.add(worker);
                }
            }
        }
        return new UnavailableWorkers(List.copyOf(first), total);
    }

    /** Workers of {@code role} that may take a request now. */
    public long healthyCount(WorkerRole role) {
        return byId.values().stream().filter(w -> w.role() == role && w.available()).count();
    }

    /**
     * The pool of regular workers a request goes to: by its model; with one model registered every request goes there
     * (engines accept any model name when they serve one).
     *
     * @throws NoRouteException no worker yet (503), or several models and none or an unknown one named (400)
     */
    public ModelPool resolve(String model) throws NoRouteException {
        return resolve(model, WorkerRole.REGULAR);
    }

    /** As {@link #resolve(String)}, among the pools of {@code role}. */
    public ModelPool resolve(String model, WorkerRole role) throws NoRouteException {
        Map<String, ModelPool> ofRole = pools.get(role);
        if (model != null) {
            ModelPool pool = ofRole.get(model);
            if (pool != null) {
                return pool;
            }
        }
        Collection<ModelPool> all = ofRole.values();
        if (all.isEmpty()) {
            String why = unavailable(role, model, UNAVAILABLE_NAMED).clause();
            throw role == WorkerRole.REGULAR ? new NoRouteException(new ApiError(503, "no_workers",
                    "No available workers" + why)) : new NoRouteException(new ApiError(503, "no_" + role.label()
                    + "_workers", "No " + role.label() + " workers" + (model == null ? "" : " for model " + model)
                    + why));
        }
        if (all.size() == 1) {
            return all.iterator().next();
        }
        String known = String.join(", ", new TreeSet<>(ofRole.keySet()));
        throw model == null
                ? new NoRouteException(new ApiError(400, "model_required",
                        "Model must be specified. Available models: " + known))
                : new NoRouteException(new ApiError(400, "model_not_found",
                        "Model '" + model + "' is not served here. Available models: " + known));
    }

    /** The pool of {@code role} for {@code model}, or null when it has no worker of that role. */
    public ModelPool pool(String model, WorkerRole role) {
        return pools.get(role).get(model);
    }

    /** Runs every policy's periodic housekeeping. */
    public void maintain() {
        for (ModelPool pool : pools()) {
            pool.policy().maintain();
        }
    }
}
