package dev.homing.gateway;

import dev.homing.config.WorkerUrls;
import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.http.BodyReader;
import dev.homing.gateway.http.JsonResponses;
import dev.homing.gateway.security.WorkerHostAllowList;
import dev.homing.gateway.workers.ThisGateway;
import dev.homing.gateway.workers.TooManyWorkersException;
import dev.homing.gateway.workers.UpstreamTarget;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import dev.homing.gateway.workers.WorkerSpec;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The worker API: {@code POST /workers} (202, registered in the background at the address its host was checked
 * at; 403 for a host outside the {@link WorkerHostAllowList}, 400 for the gateway's own address: {@link ThisGateway}),
 * {@code GET /workers},
 * {@code GET/PUT/DELETE /workers/{id}} where the id may also be the worker's URL, URL-encoded. Keys are never shown.
 */
final class WorkerApi {

    private static final JsonMapper JSON = JsonMapper.shared();
    /** Worker-API bodies are small; anything larger is a mistake. */
    private static final long BODY_LIMIT = 1 << 20;

    private final Vertx vertx;
    private final WorkerRegistry registry;
    private final WorkerLifecycle lifecycle;
    private final WorkerHostAllowList allowList;
    private final ThisGateway thisGateway;
    private final BodyReader bodies;
    /** Prefill/decode mode: workers are prefill or decode ones, never regular. */
    private final boolean prefillDecode;
    /** {@code --dp-aware}: a URL may name one data-parallel rank of an engine ({@code url@rank}). */
    private final boolean dpAware;

    WorkerApi(Vertx vertx, WorkerRegistry registry, WorkerLifecycle lifecycle, boolean prefillDecode,
              boolean dpAware, WorkerHostAllowList allowList, ThisGateway thisGateway, BodyReader bodies) {
        this.thisGateway = thisGateway;
        this.bodies = bodies;
        this.vertx = vertx;
        this.registry = registry;
        this.lifecycle = lifecycle;
        this.prefillDecode = prefillDecode;
        this.dpAware = dpAware;
        this.allowList = allowList;
    }

    /** {@code GET /workers}. */
    void list(HttpServerRequest req, String unused) {
        List<Map<String, Object>> list = registry.workers().stream().map(WorkerApi::describe).toList();
        JsonResponses.send(req.response(), 200, Map.of("workers", list, "total", list.size()));
    }

    /** {@code POST /workers}. */
    void add(HttpServerRequest req, String unused) {
        bodies.read(req, BODY_LIMIT, body -> addWorker(req, body));
    }

    /** {@code GET /workers/{id}}. */
    void get(HttpServerRequest req, String id) {
        Worker worker = find(req, id);
        if (worker != null) {
            JsonResponses.send(req.response(), 200, describe(worker));
        }
    }

    /** {@code PUT /workers/{id}}: its labels or priority. */
    void update(HttpServerRequest req, String id) {
        Worker worker = find(req, id);
        if (worker != null) {
            bodies.read(req, BODY_LIMIT, body -> updateWorker(req, worker, body));
        }
    }

    /** {@code DELETE /workers/{id}}. */
    void remove(HttpServerRequest req, String id) {
        Worker worker = find(req, id);
        if (worker != null) {
            Worker removed = registry.remove(worker.id());
            Map<String, Object> body = new LinkedHashMap<>(describe(removed));
            body.put("status", "removed");
            JsonResponses.send(req.response(), 200, body);
        }
    }

    /** The worker a path's id names (its id, or its URL, URL-encoded), or null when answered 404. */
    private Worker find(HttpServerRequest req, String encodedId) {
        String id = URLDecoder.decode(encodedId, StandardCharsets.UTF_8);
        Worker worker = registry.find(id);
        if (worker == null) {
            fail(req, ApiError.notFound("No worker " + id));
        }
        return worker;
    }

    private void addWorker(HttpServerRequest req, Buffer body) {
        WorkerSpec spec;
        try {
            JsonNode node = JSON.readTree(body.getBytes());
            if (!node.isObject() || !node.path("url").isString()) {
                fail(req, ApiError.badRequest("body must be a JSON object with a string 'url'"));
                return;
            }
            String url = WorkerUrls.normalize(node.get("url").asString());
            String problem = WorkerUrls.problem(url);
            if (problem == null && !dpAware && WorkerUrls.rank(url) != null) {
                problem = "'" + url + "' names a data-parallel rank, which needs the gateway's --dp-aware";
            }
            if (problem != null) {
                fail(req, ApiError.badRequest(problem));
                return;
            }
            WorkerRole role = role(node);
            spec = new WorkerSpec(url, optionalText(node, "api_key"), optionalText(node, "model_id"),
                    labels(node), node.path("priority").asInt(WorkerSpec.DEFAULT_PRIORITY), role,
                    bootstrapPort(node, role));
        } catch (JacksonException | IllegalArgumentException e) {
            fail(req, ApiError.badRequest("invalid worker: " + e.getMessage()));
            return;
        }
        // The check may wait on DNS, so it runs off the event loop; its answer comes back on this request's loop.
        vertx.executeBlocking(() -> checkHost(spec)).onComplete(checked -> {
            if (checked.failed()) {
                // Words only: the exception's class is the gateway's business, not the caller's.
                String why = Objects.requireNonNullElse(checked.cause().getMessage(), "no reason given");
                fail(req, new ApiError(500, "worker_host_check_failed",
                        "Could not check the host of worker " + spec.url() + ": " + why));
            } else if (checked.result().refusal() != null) {
                fail(req, checked.result().refusal());
            } else {
                register(req, spec, checked.result().address());
            }
        });
    }

    /** The address a new worker's host was checked at, or why it is refused. */
    private record HostCheck(InetAddress address, ApiError refusal) {
    }

    /**
     * The allow list's verdict on the worker's host, then whether the address it allows is this gateway's own
     * listener (403 outside the list, 400 for the gateway itself). Blocks on DNS and the machine's interfaces.
     */
    private HostCheck checkHost(WorkerSpec spec) {
        String engine = WorkerUrls.engine(spec.url());
        return switch (allowList.check(engine)) {
            case WorkerHostAllowList.Refused refused ->
                    new HostCheck(null, new ApiError(403, "worker_host_not_allowed", refused.reason()));
            case WorkerHostAllowList.Allowed allowed -> {
                String own = thisGateway.problem(engine, allowed.address(), UpstreamTarget.of(engine, null).port());
                yield new HostCheck(allowed.address(), own == null ? null
                        : new ApiError(400, "worker_is_this_gateway", own));
            }
        };
    }

    /** Registers the worker at the address its host was checked at: a later DNS answer cannot move it. */
    private void register(HttpServerRequest req, WorkerSpec spec, InetAddress checkedAddress) {
        try {
            WorkerLifecycle.Registration registration = lifecycle.register(spec, checkedAddress);
            Map<String, Object> out = new LinkedHashMap<>(describe(registration.worker()));
            out.put("status", "pending");
            JsonResponses.send(req.response(), 202, out);
        } catch (IllegalArgumentException duplicate) {
            fail(req, new ApiError(409, "worker_exists", duplicate.getMessage()));
        } catch (TooManyWorkersException full) {
            fail(req, new ApiError(429, "too_many_workers", full.getMessage()));
        }
    }

    private void updateWorker(HttpServerRequest req, Worker worker, Buffer body) {
        try {
            JsonNode node = JSON.readTree(body.getBytes());
            if (!node.isObject()) {
                fail(req, ApiError.badRequest("body must be a JSON object"));
                return;
            }
            worker.update(node.has("labels") ? labels(node) : null,
                    node.has("priority") ? node.get("priority").asInt() : null);
            JsonResponses.send(req.response(), 200, describe(worker));
        } catch (JacksonException | IllegalArgumentException e) {
            fail(req, ApiError.badRequest("invalid worker update: " + e.getMessage()));
        }
    }

    /** {@code worker_type}: regular when absent; in prefill/decode mode it must be prefill or decode. */
    private WorkerRole role(JsonNode node) {
        WorkerRole role = WorkerRole.of(Objects.requireNonNullElse(optionalText(node, "worker_type"), "regular"));
        if (prefillDecode == (role == WorkerRole.REGULAR)) {
            throw new IllegalArgumentException(prefillDecode
                    ? "worker_type must be prefill or decode: the gateway runs in prefill/decode mode"
                    : "worker_type " + role.label() + " needs the gateway in prefill/decode mode "
                            + "(--pd-disaggregation)");
        }
        return role;
    }

    /** {@code bootstrap_port}: a prefill worker's, 1..65535, or absent (learnt from the worker). */
    private static Integer bootstrapPort(JsonNode node, WorkerRole role) {
        JsonNode port = node.get("bootstrap_port");
        if (port == null || port.isNull()) {
            return null;
        }
        if (role != WorkerRole.PREFILL) {
            throw new IllegalArgumentException("bootstrap_port is a prefill worker's");
        }
        if (!port.isInt() || port.asInt() < 1 || port.asInt() > 65_535) {
            throw new IllegalArgumentException("bootstrap_port must be an integer 1..65535");
        }
        return port.asInt();
    }

    private static String optionalText(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return value.asString();
    }

    private static Map<String, String> labels(JsonNode node) {
        JsonNode labels = node.get("labels");
        if (labels == null || labels.isNull()) {
            return Map.of();
        }
        if (!labels.isObject()) {
            throw new IllegalArgumentException("labels must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : labels.properties()) {
            out.put(e.getKey(), e.getValue().asString());
        }
        return out;
    }

    /** A worker as the worker API shows it; the API key is never shown. */
    private static Map<String, Object> describe(Worker w) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", w.id());
        out.put("url", w.url());
        out.put("model_id", w.modelId());
        out.put("worker_type", w.role().label());
        if (w.role() == WorkerRole.PREFILL) {
            out.put("bootstrap_port", w.bootstrapPort());
        }
        if (w.dpRank() != null) {
            out.put("dp_rank", w.dpRank());
        }
        out.put("state", w.state().name().toLowerCase(java.util.Locale.ROOT));
        out.put("is_healthy", w.healthy());
        out.put("load", w.inFlight());
        out.put("labels", w.labels());
        out.put("priority", w.priority());
        out.put("has_api_key", w.target().authorization() != null);
        return out;
    }


    private static void fail(HttpServerRequest req, ApiError error) {
        error.send(req.response());
    }
}
