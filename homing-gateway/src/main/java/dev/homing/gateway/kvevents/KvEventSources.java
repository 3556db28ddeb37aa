package dev.homing.gateway.kvevents;

import dev.homing.gateway.workers.Worker;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Ties the subscriptions to the workers' lives: when a worker becomes active its endpoint is found (from
 * {@code --kv-events}: its {@code /get_server_info} for {@code auto}, a template, or the default) and it is
 * subscribed; when it is removed its subscription and view go. Under {@code auto}, an engine whose
 * {@code /get_server_info} answers without a {@code kv_events_config} publishes nothing: it is subscribed to nothing
 * and reported NONE ({@link KvEventSubscribers#ENGINE_REPORTS_NO_KV_EVENTS}); one without that route (vLLM) is
 * subscribed at the engines' default endpoint. Runs on whatever thread tells it; the work is
 * asynchronous.
 */
public final class KvEventSources {

    private static final Logger LOG = LoggerFactory.getLogger(KvEventSources.class);

    private final KvEventsMode mode;
    private final KvEventSubscribers subscribers;
    /** Asks a worker a GET path: the control plane's client. */
    private final BiFunction<Worker, String, Future<Buffer>> get;

    public KvEventSources(KvEventsMode mode, KvEventSubscribers subscribers,
                          BiFunction<Worker, String, Future<Buffer>> get) {
        this.mode = mode;
        this.subscribers = subscribers;
        this.get = get;
    }

    public void workerActive(Worker worker) {
        String host = worker.target().host();
        Integer rank = worker.dpRank();
        if (!mode.auto()) {
            subscribe(worker, KvEventEndpoint.fromTemplate(mode.value(), host, rank));
            return;
        }
        get.apply(worker, "/get_server_info").map(body -> Optional.ofNullable(
                KvEventEndpoint.fromServerInfo(body.getBytes(), host, rank))).otherwise(err -> {
            LOG.debug("worker {}: no /get_server_info ({}); KV events at the default endpoint", worker.url(),
                    err.getMessage());
            return Optional.of(KvEventEndpoint.byDefault(host, rank));
        }).onSuccess(reported -> reported.ifPresentOrElse(endpoint -> subscribe(worker, endpoint), () -> {
            LOG.info("worker {}: its engine reports no kv_events_config; routing on the prefix tree for it",
                    worker.url());
            subscribers.withoutEvents(worker.url(), worker.modelId(), KvEventSubscribers.ENGINE_REPORTS_NO_KV_EVENTS,
                    () -> worker.state() != Worker.State.REMOVED);
        }));
    }

    public void workerRemoved(Worker worker) {
        subscribers.unsubscribe(worker.url());
    }

    private void subscribe(Worker worker, KvEventEndpoint endpoint) {
        // Checked again on the subscriber thread: a removal's unsubscribe may have gone by meanwhile.
        subscribers.subscribe(worker.url(), worker.modelId(), endpoint,
                () -> worker.state() != Worker.State.REMOVED);
    }
}
