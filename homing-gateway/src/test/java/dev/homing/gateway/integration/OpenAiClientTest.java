package dev.homing.gateway.integration;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.NotFoundException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.embeddings.Embedding;
import com.openai.models.embeddings.EmbeddingCreateParams;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The official OpenAI Java SDK talks to the gateway as it would to OpenAI. */
class OpenAiClientTest {

    private static SimEngineServer engine;
    private static RunningGateway gateway;
    private static OpenAIClient client;

    @BeforeAll
    static void start() {
        engine = SimEngineServer.start(TestVertx.get(),
                SimEngines.options(SimEngines.config()));
        gateway = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.WORKER_URLS, List.of(engine.url())));
        client = OpenAIOkHttpClient.builder().baseUrl(gateway.url("/v1")).apiKey("unused").maxRetries(0).build();
    }

    @AfterAll
    static void stop() {
        client.close();
        gateway.close();
        engine.close();
    }

    private static ChatCompletionCreateParams params() {
        return ChatCompletionCreateParams.builder().model("sim-model").maxCompletionTokens(8)
                .addSystemMessage("You are terse.").addUserMessage("Say hello.").build();
    }

    @Test
    void aChatCompletionComesBackAsTheSdkExpects() {
        ChatCompletion completion = client.chat().completions().create(params());

        assertThat(completion.choices()).hasSize(1);
        assertThat(completion.choices().getFirst().message().content()).isPresent();
    }

    @Test
    void aModelIsRetrievedByItsId() {
        assertThat(client.models().retrieve("sim-model").id()).isEqualTo("sim-model");
    }

    @Test
    void aModelNotServedIsANotFoundErrorTheSdkCanBranchOn() {
        assertThatThrownBy(() -> client.models().retrieve("no-such-model"))
                .isInstanceOfSatisfying(NotFoundException.class, e -> {
                    assertThat(e.type()).hasValue("not_found_error");
                    assertThat(e.code()).hasValue("model_not_found");
                    assertThat(e.param()).hasValue("model");
                });
    }

    @Test
    void embeddingsInTheSdksDefaultBase64DecodeToTheFloatsAskedForAsNumbers() {
        EmbeddingCreateParams.Builder params = EmbeddingCreateParams.builder().model("sim-model")
                .input("the same text");

        Embedding byDefault = client.embeddings().create(params.build()).data().getFirst();
        Embedding asNumbers = client.embeddings().create(params.encodingFormat(
                EmbeddingCreateParams.EncodingFormat.FLOAT).build()).data().getFirst();

        assertThat(byDefault.embeddingValue().isBase64()).as("sent as the base64 the SDK asked for").isTrue();
        assertThat(byDefault.embedding()).hasSize(16).isEqualTo(asNumbers.embedding()).anyMatch(value -> value != 0f);
    }

    @Test
    void aStreamedChatCompletionArrivesChunkByChunk() {
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params())) {
            List<ChatCompletionChunk> chunks = stream.stream().collect(Collectors.toList());

            assertThat(chunks).hasSizeGreaterThan(1);
            assertThat(chunks.stream().flatMap(c -> c.choices().stream())
                    .anyMatch(choice -> choice.finishReason().isPresent())).isTrue();
        }
    }
}
