package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Malformed requests get a 400 in the OpenAI error shape, never a crash, small or large (parsed off the event loop). */
class BadInputTest {
    @RegisterExtension
    static final SharedSimEngine engine = SharedSimEngine.atTimeScale(1000);

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "/v1/chat/completions | {not json",
        "/v1/chat/completions | []",
        "/v1/chat/completions | {\"max_tokens\":5}",
        "/v1/chat/completions | {\"messages\":[]}",
        "/v1/chat/completions | {\"messages\":[{\"content\":\"no role\"}]}",
        "/v1/chat/completions | {\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":-1}",
        "/v1/chat/completions | {\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":\"yes\"}",
        "/v1/completions | {\"prompt\":\"\"}",
        "/v1/completions | {\"prompt\":[\"a\",\"batch\"]}",
        "/v1/completions | {\"prompt\":\"hi\",\"max_tokens\":1000000}",
        "/generate | {\"text\":[\"a\",3]}",
        "/generate | {\"text\":[]}",
        "/generate | {\"text\":\"hi\",\"sampling_params\":{\"n\":0}}",
        "/generate | {\"text\":\"hi\",\"data_parallel_rank\":-1}",
        "/generate | {\"text\":\"hi\",\"data_parallel_rank\":1}",
        "/generate | {\"text\":\"hi\",\"bootstrap_room\":7}",
        "/generate | {\"text\":\"hi\",\"bootstrap_host\":\"p\",\"bootstrap_port\":0,\"bootstrap_room\":7}",
        "/generate | {\"text\":\"hi\",\"bootstrap_host\":\"p\",\"bootstrap_port\":8998,\"bootstrap_room\":-7}",
        "/generate | {\"text\":[\"a\",\"b\"],\"bootstrap_host\":\"p\",\"bootstrap_port\":8998,"
            + "\"bootstrap_room\":[1]}",
        "/v1/completions | {\"prompt\":\"hi\",\"logprobs\":9}",
        "/generate | {\"input_ids\":[1,\"two\"]}",
        "/generate | {\"sampling_params\":{}}",
        "/v1/embeddings | {\"input\":42}",
        "/v1/embeddings | {\"input\":\"a\",\"encoding_format\":\"int8\"}",
        "/v1/embeddings | {\"input\":\"a\",\"encoding_format\":1}",
        "/v1/rerank | {\"query\":1,\"documents\":[\"a\"]}",
    })
    void aMalformedRequestGetsA400WithAMessage(String path, String body) {
        HttpResponse<String> response = engine.post(path, body);

        assertThat(SimEngineClient.errorMessage(response, 400)).isNotBlank();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "not json | {\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}",
        "no messages | {\"prompt\":\"%s\"}",
        "a prompt too long for the context | {\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}",
    })
    void aLargeMalformedBodyParsedOffTheEventLoopGetsA400Too(String what, String template) {
        String text = "word ".repeat(what.startsWith("a prompt too long") ? 200_000 : 5_000);

        HttpResponse<String> response = engine.post("/v1/chat/completions", template.formatted(text));

        assertThat(SimEngineClient.errorMessage(response, 400)).isNotBlank();
    }

    @Test
    void aLargeWellFormedBodyParsedOffTheEventLoopIsAnswered() {
        String text = "word ".repeat(5_000);

        HttpResponse<String> response = engine.post("/v1/chat/completions",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}],\"max_tokens\":2}");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    @ParameterizedTest
    @CsvSource({"/v2/chat", "/generate/extra"})
    void anUnknownPathGetsA404(String path) {
        assertThat(engine.post(path, "{}").statusCode()).isEqualTo(404);
    }
}
