package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.bench.workload.ChatMessage;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LoadClientTest {

    private static final List<ChatMessage> QUESTION = List.of(ChatMessage.user("why is the sky blue today"));

    private static Vertx vertx;
    private static SimEngineServer engine;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
    }

    @AfterAll
    static void stop() {
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aWholeAnswerHasUsageAndTextButNoTimeToFirstToken() throws Exception {
        RequestOutcome outcome = sendOne(Endpoint.CHAT, false);

        assertThat(outcome.succeeded()).isTrue();
        assertThat(outcome.ttftNanos()).isEqualTo(-1);
        assertThat(outcome.usage().completionTokens()).isEqualTo(12);
        assertThat(outcome.text()).isNotBlank();
    }

    @Test
    void aStreamedChatAnswerKeepsItsTextWhenAsked() throws Exception {
        RequestOutcome outcome = sendOne(Endpoint.CHAT, true);

        assertThat(outcome.succeeded()).isTrue();
        // The simulated engine answers one pseudo-word per token.
        assertThat(outcome.text().trim().split(" ")).hasSize(12);
        assertThat(outcome.gapNanos()).hasSize(outcome.textChunks() - 1);
    }

    @Test
    void aStreamedGenerateAnswerKeepsItsTextFromTheLastChunk() throws Exception {
        RequestOutcome outcome = sendOne(Endpoint.GENERATE, true);

        assertThat(outcome.succeeded()).isTrue();
        assertThat(outcome.text()).isNotBlank();
        assertThat(outcome.usage().completionTokens()).isEqualTo(12);
    }

    @Test
    void aStreamedRequestAnsweredWithoutEventsIsAnInvalidResponse() throws Exception {
        HttpServer notStreaming = vertx.createHttpServer().requestHandler(request -> request.response()
                .putHeader("content-type", "application/json").end("{\"ok\":true}"));
        notStreaming.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            RequestOutcome outcome = sendOne("http://127.0.0.1:" + notStreaming.actualPort(), Endpoint.CHAT, true);

            assertThat(outcome.errorKind()).isEqualTo("invalid_response");
        } finally {
            notStreaming.close();
        }
    }

    private static RequestOutcome sendOne(Endpoint endpoint, boolean stream) throws Exception {
        return sendOne(engine.url(), endpoint, stream);
    }

    private static RequestOutcome sendOne(String url, Endpoint endpoint, boolean stream) throws Exception {
        LoadClient client = new LoadClient(vertx, LiveRuns.target(url, endpoint));
        byte[] body = new RequestEncoder(endpoint, "", stream, false).encode(QUESTION, 12);
        Context context = vertx.getOrCreateContext();
        CompletableFuture<RequestOutcome> outcome = new CompletableFuture<>();
        context.runOnContext(v -> client.send(new LoadRequest(body, stream, true), System.nanoTime())
                .onComplete(ar -> {
                    client.close();
                    outcome.complete(ar.result());
                }));
        return outcome.get(10, TimeUnit.SECONDS);
    }
}
