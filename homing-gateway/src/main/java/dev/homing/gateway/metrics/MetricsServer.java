package dev.homing.gateway.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * The metrics listener ({@code --prometheus-host}/{@code --prometheus-port}): {@code GET /metrics}, nothing else,
 * over HTTP/1.1 alone (a scraper needs no more). Open to every interface and without authentication by default, it
 * has the data plane's client deadlines, so partial heads or idle connections cannot hold its sockets for long.
 */
public final class MetricsServer {

    private final HttpServer server;

    private MetricsServer(HttpServer server) {
        this.server = server;
    }

    /** @param options the listener's options, with the client deadlines' idle timeout; h2c is turned off here */
    public static Future<MetricsServer> start(Vertx vertx, PrometheusRegistry registry, String host, int port,
                                              HttpServerOptions options) {
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        HttpServer server = vertx.createHttpServer(new HttpServerOptions(options).setHttp2ClearTextEnabled(false));
        server.requestHandler(req -> {
            if (!req.path().equals("/metrics")) {
                req.response().setStatusCode(404).end("Not Found\n");
                return;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
            try {
                writer.write(out, registry.scrape());
            } catch (IOException | RuntimeException e) {
                req.response().setStatusCode(500).end("metrics unavailable\n");
                return;
            }
            req.response().putHeader("content-type", writer.getContentType()).end(Buffer.buffer(out.toByteArray()));
        });
        return server.listen(port, host).map(MetricsServer::new);
    }

    public int port() {
        return server.actualPort();
    }

    public Future<Void> close() {
        return server.close();
    }
}
