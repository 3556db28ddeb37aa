package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.sim.model.DisaggregationConfig;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A prefill engine and a decode engine on loopback, given the same request at once as the gateway gives it: the
 * bootstrap exchange, the transfer, the rooms' failures and what every answer reports.
 */
class DisaggregatedEnginesTest {
    /** Patient enough that a loaded machine never times a room out by accident: 10 minutes of real time. */
    private static final DisaggregationConfig ROLES = new DisaggregationConfig(
        TimeUnit.MINUTES.toNanos(10) * (long) PrefillDecodePair.TIME_SCALE, 400, 2_000_000, 128 * 1024);
    /** Times a room out after 2 virtual seconds: 10 ms of real time. */
    private static final DisaggregationConfig IMPATIENT = new DisaggregationConfig(TimeUnit.SECONDS.toNanos(2), 400,
        2_000_000, 128 * 1024);

    private static PrefillDecodePair pair;
    private static long nextRoom = 1_000;

    @BeforeAll
    static void start() {
        pair = new PrefillDecodePair(ROLES);
    }

    @AfterAll
    static void stop() {
        pair.close();
    }

    /** The message of a 500 in the OpenAI error shape. */
    private static String serverError(HttpResponse<String> response) {
        return SimEngineClient.errorMessage(response, 500);
    }

    private static String generate(String text, int tokens, String bootstrap, String more) {
        return "{\"text\":\"" + text + "\",\"sampling_params\":{\"max_new_tokens\":" + tokens + "}," + bootstrap
            + more + "}";
    }

    @Test
    void theDecodeEngineAnswersTheWholeOutputAndThePrefillEngineOneToken() {
        String prompt = "Where is the lighthouse of Alexandria? ".repeat(20);
        PrefillDecodePair.Answers answers = pair.send("/generate", generate(prompt, 12,
            pair.bootstrap(nextRoom++), ""));

        assertThat(answers.prefill().statusCode()).isEqualTo(200);
        assertThat(answers.decode().statusCode()).isEqualTo(200);
        assertThat(answers.prefillJson().at("/meta_info/completion_tokens").intValue()).isEqualTo(1);
        JsonNode decode = answers.decodeJson();
        assertThat(decode.at("/meta_info/completion_tokens").intValue()).isEqualTo(12);
        assertThat(decode.at("/meta_info/prompt_tokens").intValue())
            .isEqualTo(answers.prefillJson().at("/meta_info/prompt_tokens").intValue());
        assertThat(decode.path("text").stringValue().split(" ")).hasSize(12);
        assertThat(decode.path("text").stringValue())
            .startsWith(answers.prefillJson().path("text").stringValue().strip());
    }

    @Test
    void aLaterTurnReportsThePrefillEnginesCacheHitOnTheDecodeAnswer() {
        String first = "You are a patient tutor of Latin grammar. ".repeat(30);
        pair.send("/generate", generate(first, 4, pair.bootstrap(nextRoom++), ""));

        PrefillDecodePair.Answers second = pair.send("/generate", generate(first + "Decline rosa.", 4,
            pair.bootstrap(nextRoom++), ""));

        int prefillHit = second.prefillJson().at("/meta_info/cached_tokens").intValue();
        assertThat(prefillHit).isGreaterThan(first.length() / 4 - 2);
        assertThat(second.decodeJson().at("/meta_info/cached_tokens").intValue()).isEqualTo(prefillHit);
    }

    @Test
    void theKvCrossesTheDecodeEnginesLinkBeforeDecoding() {
        // 0.01 Gb/s: 2,000 tokens of 128 KiB take 210 virtual seconds on the wire, about a second of real time at the
        // pair's scale. The prefill's own latency counts the real time a busy machine stalls it, times the scale: the
        // wire must outlast such stalls by far for the prefill to finish first whatever the load.
        DisaggregationConfig slowLink = new DisaggregationConfig(ROLES.bootstrapTimeoutNanos(), 0.01, 0, 128 * 1024);
        try (PrefillDecodePair slow = new PrefillDecodePair(slowLink)) {
            String prompt = "abcd".repeat(2000);
            PrefillDecodePair.Answers answers = slow.send("/generate", generate(prompt, 2, slow.bootstrap(7), ""));

            double wire = 2000 * 128 * 1024 * 8 / 0.01e9;
            assertThat(answers.decodeJson().at("/meta_info/e2e_latency").doubleValue()).isGreaterThan(wire);
            assertThat(answers.prefillJson().at("/meta_info/e2e_latency").doubleValue()).isLessThan(wire);
        }
    }

    @Test
    void eachItemOfABatchHasItsOwnRoom() {
        long a = nextRoom++;
        long b = nextRoom++;
        String body = "{\"text\":[\"First question, about rivers.\",\"Second question, about hills.\"],"
            + "\"sampling_params\":{\"max_new_tokens\":5},\"bootstrap_host\":[\"127.0.0.1\",\"127.0.0.1\"],"
            + "\"bootstrap_port\":[" + pair.prefill.bootstrapPort() + "," + pair.prefill.bootstrapPort() + "],"
            + "\"bootstrap_room\":[" + a + "," + b + "]}";

        PrefillDecodePair.Answers answers = pair.send("/generate", body);

        JsonNode decode = answers.decodeJson();
        assertThat(decode.isArray()).isTrue();
        assertThat(decode).hasSize(2);
        assertThat(decode.get(1).at("/meta_info/completion_tokens").intValue()).isEqualTo(5);
        assertThat(answers.prefillJson()).hasSize(2);
        assertThat(decode.get(0).path("text").stringValue()).isNotEqualTo(decode.get(1).path("text").stringValue());
    }

    @Test
    void oneRoomForABatchGivesItsItemsConsecutiveRooms() {
        long first = nextRoom;
        nextRoom += 3;
        String body = "{\"text\":[\"one\",\"two\",\"three\"],\"sampling_params\":{\"max_new_tokens\":2},"
            + pair.bootstrap(first) + "}";

        PrefillDecodePair.Answers answers = pair.send("/generate", body);

        assertThat(answers.decode().statusCode()).isEqualTo(200);
        assertThat(answers.decodeJson()).hasSize(3);
    }

    @Test
    void thePrefillEngineGivesTheInputLogprobsTheDecodeEngineTheOutputOnes() {
        SimEngineServer regular = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
        try {
            String prompt = "Count the stars in the sky tonight.";
            PrefillDecodePair.Answers answers = pair.send("/generate", generate(prompt, 6, pair.bootstrap(nextRoom++),
                ",\"return_logprob\":true"));
            JsonNode alone = new SimEngineClient(regular).postJson("/generate",
                "{\"text\":\"" + prompt + "\",\"sampling_params\":{\"max_new_tokens\":6},\"return_logprob\":true}");

            JsonNode prefillInput = answers.prefillJson().at("/meta_info/input_token_logprobs");
            assertThat(prefillInput).hasSize(answers.prefillJson().at("/meta_info/prompt_tokens").intValue());
            assertThat(prefillInput.get(0).get(0).isNull()).isTrue();
            assertThat(prefillInput).isEqualTo(alone.at("/meta_info/input_token_logprobs"));
            JsonNode decode = answers.decodeJson().path("meta_info");
            assertThat(decode.path("input_token_logprobs").isArray()).isTrue();
            assertThat(decode.path("input_token_logprobs")).isEmpty();
            assertThat(decode.path("output_token_logprobs")).hasSize(6)
                .isEqualTo(alone.at("/meta_info/output_token_logprobs"));
        } finally {
            regular.close();
        }
    }

    @Test
    void aStreamedDecodeAnswerStreamsEveryTokenWithItsUsage() {
        String body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Name three seas.\"}],"
            + "\"max_tokens\":7,\"stream\":true,\"stream_options\":{\"include_usage\":true}," + pair.bootstrap(nextRoom++)
            + "}";

        PrefillDecodePair.Answers answers = pair.send("/v1/chat/completions", body);

        ServerSentEvents decode = ServerSentEvents.parse(answers.decode().body());
        assertThat(answers.decode().headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(decode.endsWithDone()).isTrue();
        assertThat(decode.json().getLast().at("/usage/completion_tokens").intValue()).isEqualTo(7);
        assertThat(ServerSentEvents.parse(answers.prefill().body()).json().getLast()
            .at("/usage/completion_tokens").intValue()).isEqualTo(1);
    }

    @Test
    void eitherEngineRefusesARequestWithoutBootstrapFields() {
        String alone = "{\"text\":\"Serve me alone.\",\"sampling_params\":{\"max_new_tokens\":3}}";

        for (SimEngineClient engine : List.of(pair.prefillClient, pair.decodeClient)) {
            HttpResponse<String> response = engine.post("/generate", alone);
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).contains("cannot serve a request alone", "bootstrap_room");
        }
    }

    @Test
    void aRoomGivenTwiceToTheSameEngineIsRefused() {
        long room = nextRoom++;
        var first = PrefillDecodePair.sendAsync(pair.prefillClient, "/generate",
            generate("first", 2, pair.bootstrap(room), ""));
        await().atMost(Duration.ofSeconds(20)).until(() -> PrefillDecodePair.rooms(pair.prefillClient) > 0);

        HttpResponse<String> second = pair.prefillClient.post("/generate", generate("second", 2,
            pair.bootstrap(room), ""));

        assertThat(second.statusCode()).isEqualTo(400);
        assertThat(second.body()).contains("bootstrap room " + room + " is already in use");
        pair.decodeClient.post("/generate", generate("first", 2, pair.bootstrap(room), ""));
        assertThat(first.join().statusCode()).isEqualTo(200);
    }

    @Test
    void aPrefillWhoseDecodeNeverRegistersFailsWithSglangsBootstrappingErrorAndLeavesNothing() {
        try (PrefillDecodePair impatient = new PrefillDecodePair(IMPATIENT)) {
            String message = serverError(impatient.prefillClient.post("/generate", generate("lonely", 3,
                impatient.bootstrap(424242), ",\"stream\":true")));

            assertThat(message).startsWith("Prefill bootstrap failed for request rank=0").endsWith("with exception "
                + "KVTransferError(bootstrap_room=424242): Request 424242 timed out after 2.0s in KVPoll.Bootstrapping");
            assertThat(PrefillDecodePair.rooms(impatient.prefillClient)).isZero();
        }
    }

    @Test
    void aDecodeWhosePrefillNeverComesFailsWithSglangsWaitingErrorAndWithdrawsItsRoom() {
        try (PrefillDecodePair impatient = new PrefillDecodePair(IMPATIENT)) {
            String message = serverError(impatient.decodeClient.post("/generate", generate("forgotten", 3,
                impatient.bootstrap(777), "")));

            assertThat(message).startsWith("Decode transfer failed for request rank=0")
                .endsWith("KVTransferError(bootstrap_room=777): Request 777 timed out after 2.0s in "
                    + "KVPoll.WaitingForInput");
            await().atMost(Duration.ofSeconds(20)).until(() -> PrefillDecodePair.rooms(impatient.decodeClient) == 0
                && PrefillDecodePair.rooms(impatient.prefillClient) == 0);
        }
    }

    @Test
    void aPrefillWhoseClientLeavesFailsTheRegisteredDecodeAsSglangAbortsARoom() {
        // Real time: the 20,000-token prefill takes over a second, long after the prefill's client has gone.
        try (PrefillDecodePair realTime = new PrefillDecodePair(ROLES, 1)) {
            String body = generate("abcd".repeat(20_000), 3, realTime.bootstrap(5150), "");
            var decode = PrefillDecodePair.sendAsync(realTime.decodeClient, "/generate", body);
            await().atMost(Duration.ofSeconds(20)).until(() -> PrefillDecodePair.rooms(realTime.prefillClient) == 1);

            try (RawHttp prefill = RawHttp.post(realTime.prefill, "/generate", body)) {
                await().atMost(Duration.ofSeconds(20))
                    .until(() -> PrefillDecodePair.running(realTime.prefillClient) == 1);
            }

            assertThat(serverError(decode.join()))
                .endsWith("KVTransferError(bootstrap_room=5150): Aborted by AbortReq.");
            await().atMost(Duration.ofSeconds(20)).until(() -> PrefillDecodePair.rooms(realTime.prefillClient) == 0
                && PrefillDecodePair.rooms(realTime.decodeClient) == 0);
        }
    }

    @Test
    void aDecodeWhosePrefillEngineCannotBeReachedFailsAtOnce() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String body = "{\"text\":\"anyone?\",\"sampling_params\":{\"max_new_tokens\":3},"
            + "\"bootstrap_host\":\"127.0.0.1\",\"bootstrap_port\":" + closedPort + ",\"bootstrap_room\":99}";

        HttpResponse<String> response = pair.decodeClient.post("/generate", body);

        assertThat(serverError(response)).contains("KVTransferError(bootstrap_room=99): cannot reach the bootstrap "
            + "server at 127.0.0.1:" + closedPort);
    }

    @Test
    void serverInfoReportsTheModeAndTheBoundBootstrapPort() {
        JsonNode prefill = SimEngineClient.JSON.readTree(pair.prefillClient.get("/get_server_info").body());
        JsonNode decode = SimEngineClient.JSON.readTree(pair.decodeClient.get("/get_server_info").body());

        assertThat(prefill.path("disaggregation_mode").stringValue()).isEqualTo("prefill");
        assertThat(prefill.path("disaggregation_bootstrap_port").intValue()).isEqualTo(pair.prefill.bootstrapPort())
            .isPositive();
        assertThat(decode.path("disaggregation_mode").stringValue()).isEqualTo("decode");
        assertThat(pair.decode.bootstrapPort()).isEqualTo(-1);
    }
}
