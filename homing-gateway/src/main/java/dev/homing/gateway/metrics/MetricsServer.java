package dev.homing.gateway.metrics;

import dev.homing.gateway.http.EdgeStage;
import dev.homing.gateway.http.Route;
import dev.homing.gateway.http.RouteMatch;
import dev.homing.gateway.http.Routes;
import dev.homing.gateway.security.RouteAccess;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

/**
 * The metrics listener ({@code --prometheus-host}/{@code --prometheus-port}): {@code GET /metrics}, public, and the
 * routes the gateway adds (the status page), over HTTP/1.1 alone (a scraper needs no more). Its own route table, with the data plane's access and route stages: a
 * route added here declares who may call it, and anything else is 404 or 405. Open to every interface by default, it
 * has the data plane's client deadlines, so partial heads or idle connections cannot hold its sockets for long. Its
 * requests are not counted in the HTTP metrics: a scrape would count itself.
 */
public final class MetricsServer {

    private final HttpServer server;

    private MetricsServer(HttpServer server) {
        this.server = server;
    }

    /**
     * @param more    routes served besides {@code /metrics}
     * @param access  who may call which kind of route (the data plane's keys)
     * @param options the listener's options, with the client deadlines' idle timeout; h2c is turned off here
     */
    public static Future<MetricsServer> start(Vertx vertx, PrometheusRegistry registry, List<Route> more,
                                              RouteAccess access, String host, int port, HttpServerOptions options) {
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        Routes routes = new Routes(List.of(Route.answered(HttpMethod.GET, "/metrics", RouteAccess.Kind.PUBLIC,
                (req, param) -> scrape(req, registry, writer)))).with(more);
        List<EdgeStage> stages = List.of(access.stage(), Routes.STAGE);
        HttpServer server = vertx.createHttpServer(new HttpServerOptions(options).setHttp2ClearTextEnabled(false));
        server.requestHandler(req -> {
            RouteMatch match = routes.match(req.method(), req.path());
            EdgeStage.Refusal refusal = EdgeStage.firstRefusal(stages, req, match);
            if (refusal != null) {
                refusal.send(req);
            } else {
                match.route().handler().serve(req, null, match.param());
            }
        });
        return server.listen(port, host).map(MetricsServer::new);
    }

    private static void scrape(HttpServerRequest req, PrometheusRegistry registry, PrometheusTextFormatWriter writer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException | RuntimeException e) {
            req.response().setStatusCode(500).end("metrics unavailable\n");
            return;
        }
        req.response().putHeader("content-type", writer.getContentType()).end(Buffer.buffer(out.toByteArray()));
    }

    public int port() {
        return server.actualPort();
    }

    public Future<Void> close() {
        return server.close();
    }
}
