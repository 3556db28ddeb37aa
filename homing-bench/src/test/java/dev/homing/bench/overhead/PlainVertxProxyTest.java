package dev.homing.bench.overhead;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PlainVertxProxyTest {

    private final Vertx vertx = Vertx.vertx();
    private final List<String> seenBy = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        vertx.close().await();
    }

    @Test
    void relaysRequestsInTurnWithTheirHeadersAndBodiesBothWays() throws Exception {
        int first = upstream("first");
        int second = upstream("second");
        HttpServer proxy = PlainVertxProxy.start(vertx, 0, List.of(first, second));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + proxy.actualPort() + "/v1/chat/completions"))
                    .header("x-request-id", "r" + i).POST(HttpRequest.BodyPublishers.ofString("{\"n\":" + i + "}"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(answer.statusCode()).isEqualTo(201);
            assertThat(answer.body()).isEqualTo("POST /v1/chat/completions r" + i + " {\"n\":" + i + "}");
            assertThat(answer.headers().firstValue("x-upstream")).isPresent();
        }
        assertThat(seenBy).containsExactly("first", "second", "first", "second");
    }

    @Test
    void answers502WhenTheUpstreamIsGone() throws Exception {
        HttpServer gone = vertx.createHttpServer().requestHandler(r -> r.response().end())
                .listen(0, "127.0.0.1").await();
        int port = gone.actualPort();
        gone.close().await();
        HttpServer proxy = PlainVertxProxy.start(vertx, 0, List.of(port));

        HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy.actualPort() + "/health"))
                        .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(502);
    }

    /** An upstream that answers 201 with the method, path, request id and body, and names itself in a header. */
    private int upstream(String name) {
        return vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body -> {
            seenBy.add(name);
            request.response().setStatusCode(201).putHeader("x-upstream", name)
                    .end(request.method() + " " + request.path() + " " + request.getHeader("x-request-id") + " "
                            + body);
        })).listen(0, "127.0.0.1").await().actualPort();
    }
}
