package dev.homing.gateway.cli;

import io.vertx.core.http.HttpMethod;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class WarmupRequestsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<WarmupRequests.Request> FIRST_THOUSAND =
            IntStream.range(0, 1000).mapToObj(WarmupRequests::number).toList();

    @Test
    void everyRouteIsSentPlainAndStreamedOverBothProtocolsAndSomeGetsComeBetween() {
        Set<String> kinds = new HashSet<>();
        for (WarmupRequests.Request request : FIRST_THOUSAND) {
            String path = request.options().getURI();
            if (request.options().getMethod() == HttpMethod.GET) {
                kinds.add("GET " + path);
            } else {
                boolean stream = JSON.readTree(request.body()).path("stream").asBoolean();
                kinds.add(path + (stream ? " streamed" : " plain") + (request.overH2c() ? " h2c" : " http1"));
            }
        }

        for (String path : List.of("/v1/chat/completions", "/v1/completions", "/generate")) {
            for (String stream : List.of(" streamed", " plain")) {
                assertThat(kinds).contains(path + stream + " http1", path + stream + " h2c");
            }
        }
        assertThat(kinds).contains("GET /readiness", "GET /health", "GET /v1/models");
    }

    @Test
    void promptsShareTheirGroupsPrefixAndSpanShortToLong() {
        List<String> prompts = FIRST_THOUSAND.stream().map(WarmupRequests.Request::body).filter(b -> b != null)
                .map(WarmupRequestsTest::promptOf).toList();

        assertThat(prompts).allSatisfy(prompt -> assertThat(prompt).startsWith("Group "));
        assertThat(prompts.stream().mapToInt(String::length).min().orElseThrow()).isLessThan(60);
        assertThat(prompts.stream().mapToInt(String::length).max().orElseThrow()).isGreaterThan(1500);
        assertThat(WarmupRequests.prompt(0)).isNotEqualTo(WarmupRequests.prompt(WarmupRequests.GROUPS))
                .startsWith(WarmupRequests.prompt(WarmupRequests.GROUPS).substring(0, 20));
    }

    @Test
    void longerPromptsCarryLineBreaksQuotesAndCharactersOfTwoToFourBytesEscapedAsJsonWants() {
        List<String> bodies = FIRST_THOUSAND.stream().map(WarmupRequests.Request::body).filter(b -> b != null)
                .toList();
        List<String> prompts = bodies.stream().map(WarmupRequestsTest::promptOf).toList();

        for (String text : List.of("\n", "\"quoted\"", "caf\u00e9", "\u6771\u4eac", "\ud83d\ude42")) {
            assertThat(prompts).as("a prompt with " + text).anySatisfy(prompt -> assertThat(prompt).contains(text));
        }
        assertThat(bodies).anySatisfy(body -> assertThat(body).contains("\\n", "\\\"quoted\\\""));
        assertThat(prompts).as("short prompts stay plain words")
                .anySatisfy(prompt -> assertThat(prompt).matches("[A-Za-z0-9 :.,]+"));
    }

    @Test
    void everyOtherProbeClosesItsConnectionAsAProbeDoes() {
        List<WarmupRequests.Request> gets = FIRST_THOUSAND.stream()
                .filter(request -> request.options().getMethod() == HttpMethod.GET).toList();

        assertThat(gets).anySatisfy(get -> assertThat(connection(get)).isEqualTo("close"))
                .anySatisfy(get -> assertThat(connection(get)).isNull());
        assertThat(FIRST_THOUSAND).filteredOn(request -> request.options().getMethod() == HttpMethod.POST)
                .allSatisfy(post -> assertThat(connection(post)).isNull());
    }

    private static String connection(WarmupRequests.Request request) {
        return request.options().getHeaders() == null ? null : request.options().getHeaders().get("connection");
    }

    @Test
    void theSameNumberIsTheSameRequest() {
        assertThat(WarmupRequests.number(123).body()).isEqualTo(WarmupRequests.number(123).body());
        assertThat(WarmupRequests.number(123).options().getHeaders().names())
                .isEqualTo(WarmupRequests.number(123).options().getHeaders().names());
    }

    /** The prompt of a body, wherever its route puts it. */
    private static String promptOf(String body) {
        JsonNode tree = JSON.readTree(body);
        if (tree.has("text")) {
            return tree.get("text").asString();
        }
        if (tree.has("prompt")) {
            return tree.get("prompt").asString();
        }
        JsonNode messages = tree.get("messages");
        return messages.get(messages.size() - 1).get("content").asString();
    }
}
