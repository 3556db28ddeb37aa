package dev.homing.bench.overhead;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.transport.Transport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The floor of the gateway's HTTP stack, for the proxy-overhead benchmark's {@code vertx} row: Vert.x's HTTP server
 * and pooled client as the gateway runs them (the same transport, keep-alive, no Nagle, the same pool bound), relaying
 * each request to the next upstream in turn and its answer back, headers copied both ways and body chunks passed as
 * they come. Nothing else: no routing, no limits, no metrics, no retries. What a request costs the gateway above this
 * row is the gateway's own work; what this row costs above HAProxy is the stack's.
 *
 * <p>Not a product: it forwards hop-by-hop headers and has no error handling beyond a 502.
 */
@Command(name = "plain-vertx-proxy", mixinStandardHelpOptions = true,
        description = "Relay HTTP requests round robin to upstreams with Vert.x and nothing else.")
public final class PlainVertxProxy implements Callable<Integer> {

    /** The gateway's connection pool bound per worker, so neither waits for a connection the other would have. */
    private static final int POOL_MAX_PER_UPSTREAM = 16_384;

    @Option(names = "--port", defaultValue = "0", description = "Port to listen on (0: any; printed).")
    int port;

    @Option(names = "--io-transport", defaultValue = "auto",
            description = "auto, io_uring, epoll or nio, as the gateway's --io-transport (default: ${DEFAULT-VALUE}).")
    String ioTransport;

    @Option(names = "--upstream-ports", split = ",", required = true,
            description = "Ports on 127.0.0.1 to relay to, in turn.")
    List<Integer> upstreamPorts;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PlainVertxProxy()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        Transport transport = transport(ioTransport);
        Vertx vertx = Vertx.builder().withTransport(transport).build();
        HttpServer server = start(vertx, port, upstreamPorts);
        System.out.println("listening on " + server.actualPort() + " (transport: " + transport.name() + ")");
        new CountDownLatch(1).await();
        return 0;
    }

    /** The transport named as the gateway's {@code --io-transport} names it; auto: io_uring, else epoll, else NIO. */
    private static Transport transport(String name) {
        return switch (name) {
            case "io_uring" -> Transport.IO_URING;
            case "epoll" -> Transport.EPOLL;
            case "nio" -> Transport.NIO;
            default -> Transport.IO_URING.available() ? Transport.IO_URING
                    : Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;
        };
    }

    /** Starts relaying on {@code port} of 127.0.0.1 (0: any) to {@code upstreamPorts} in turn. */
    static HttpServer start(Vertx vertx, int port, List<Integer> upstreamPorts) {
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(POOL_MAX_PER_UPSTREAM));
        // One server outside a verticle: all its connections on one event loop, so the turn needs no lock.
        int[] turn = {0};
        return vertx.createHttpServer()
                .requestHandler(request -> relay(client, request,
                        upstreamPorts.get(Math.floorMod(turn[0]++, upstreamPorts.size()))))
                .listen(port, "127.0.0.1").await();
    }

    private static void relay(HttpClient client, HttpServerRequest request, int upstream) {
        HttpServerResponse out = request.response();
        request.body()
                .compose(body -> client.request(new RequestOptions().setMethod(request.method())
                                .setHost("127.0.0.1").setPort(upstream).setURI(request.uri()))
                        .compose(call -> {
                            call.headers().addAll(request.headers());
                            return call.send(body);
                        }))
                .onSuccess(answer -> {
                    out.setStatusCode(answer.statusCode());
                    out.headers().addAll(answer.headers());
                    answer.handler(out::write);
                    answer.endHandler(v -> out.end());
                })
                .onFailure(error -> out.setStatusCode(502).end());
    }
}
