package dev.homing.gateway.cli;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * The requests a {@link ProxyWarmup} sends, numbered: as varied as the traffic a gateway meets, in the ways its code
 * branches on. The JIT compiles a method for the types and branches its profile saw; when real traffic then takes a
 * branch or brings a type the warm-up never showed, the compiled method is thrown away and compiled again, on the
 * cores the first real requests need (117 such traps in the half second after a warm-up of one kind of short
 * prompt). So the warm-up varies:
 * <ul>
 *   <li>the route: chat completions, completions and {@code /generate}, one in seven streamed, and now and then a
 *       {@code GET} of {@code /readiness}, {@code /health} or {@code /v1/models};</li>
 *   <li>the prompt: a shared prefix from one of {@link #GROUPS} groups of 20 to about 1,800 characters, so the
 *       prefix tree both matches and misses, then words of the request's own; chats have one to three messages.
 *       Longer prefixes hold what real text does: line breaks and quotes, escaped in the JSON, and words of two,
 *       three and four UTF-8 bytes a character (the routing text's reader and Jackson's branch on each; a warm-up
 *       of plain words left them to trap on the first real prompt with a line break);</li>
 *   <li>the headers: with and without {@code accept}, {@code user-agent} and {@code x-request-id}; every other
 *       {@code GET} with {@code connection: close}, as a probe sends it, so connections are accepted and closed
 *       throughout rather than only at the start (the accept's read handler trapped on the first real probe);</li>
 *   <li>the protocol: one request in eleven over h2c, where the gateway serves it ({@link ProxyWarmup#drive}).</li>
 * </ul>
 * Deterministic: request {@code i} is the same in every run.
 */
final class WarmupRequests {

    /** Prompt groups: more than a tree's first levels hold, few enough that most prompts find their group cached. */
    static final int GROUPS = 61;
    private static final String[] WORDS = {"the", "cache", "router", "prefix", "engine", "token", "batch", "decode",
        "prefill", "server", "model", "request", "stream", "answer", "question", "replica", "memory", "latency",
        "caf\u00e9", "\u6771\u4eac", "\"quoted\"", "\ud83d\ude42"};
    private static final String[] AGENTS = {"OpenAI/Python 1.99.0", "curl/8.5.0", "python-httpx/0.28.1"};
    private static final String[] GETS = {"/readiness", "/health", "/v1/models"};

    private WarmupRequests() {
    }

    /** What request {@code i} is: its method, path, headers, body ({@code null} for a GET), and whether over h2c. */
    record Request(RequestOptions options, String body, boolean overH2c) {
    }

    static Request number(int i) {
        RequestOptions options = new RequestOptions().setHost("127.0.0.1");
        if (i % 64 == 63) {
            options.setMethod(HttpMethod.GET).setURI(GETS[(i / 64) % GETS.length]);
            if (i % 128 == 63) {
                options.putHeader("connection", "close");
            }
            return new Request(options, null, false);
        }
        boolean stream = i % 7 == 0;
        options.setMethod(HttpMethod.POST).putHeader("content-type", "application/json");
        if (i % 3 != 0) {
            options.putHeader("accept", stream ? "text/event-stream" : "application/json");
        }
        if (i % 2 == 0) {
            options.putHeader("user-agent", AGENTS[(i / 2) % AGENTS.length]);
        }
        if (i % 5 == 0) {
            options.putHeader("x-request-id", "warmup-" + i);
        }
        String prompt = prompt(i);
        String body = switch (i % 4) {
            case 3 -> {
                options.setURI("/generate");
                yield "{\"text\":" + quoted(prompt) + ",\"sampling_params\":{\"max_new_tokens\":1},\"stream\":"
                        + stream + "}";
            }
            case 2 -> {
                options.setURI("/v1/completions");
                yield "{\"model\":\"" + WarmupWorker.MODEL + "\",\"prompt\":" + quoted(prompt)
                        + ",\"max_tokens\":1,\"stream\":" + stream + "}";
            }
            default -> {
                options.setURI("/v1/chat/completions");
                yield "{\"messages\":" + messages(i, prompt) + ",\"max_tokens\":1,\"stream\":" + stream + "}";
            }
        };
        return new Request(options, body, i % 11 == 0);
    }

    /** One to three messages: a user turn, after a system prompt, or after a whole earlier exchange. */
    private static String messages(int i, String prompt) {
        String user = "{\"role\":\"user\",\"content\":" + quoted(prompt) + "}";
        return switch (i % 3) {
            case 0 -> "[" + user + "]";
            case 1 -> "[{\"role\":\"system\",\"content\":\"You answer in one word.\"}," + user + "]";
            default -> "[{\"role\":\"user\",\"content\":\"Hello.\"},{\"role\":\"assistant\",\"content\":\"Hi.\"},"
                    + user + "]";
        };
    }

    /** The group's shared prefix (its length grows with the group's number), then a few words of request i. */
    static String prompt(int i) {
        int group = (i * 7) % GROUPS;
        StringBuilder text = new StringBuilder("Group ").append(group).append(':');
        int words = 3 + group * group / 12;
        for (int w = 0; w < words; w++) {
            text.append(w % 8 == 7 ? '\n' : ' ').append(WORDS[(group + w * w) % WORDS.length]);
        }
        text.append(". Say one word, ").append(i).append('.');
        return text.toString();
    }

    /** The text as a JSON string. */
    private static String quoted(String text) {
        StringBuilder json = new StringBuilder(text.length() + 16).append('"');
        JsonStringEncoder.getInstance().quoteAsString(text, json);
        return json.append('"').toString();
    }
}
