package dev.homing.sim.http;

import dev.homing.sim.model.PseudoWords;
import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Minimal, deterministic answers for the endpoints the gateway proxies but the engine model does not simulate:
 * embeddings, rerank and classify. They run at once, outside the scheduler. Stateless; thread-safe.
 */
final class PoolingAnswers {
    /** Embedding width: enough to tell texts apart, small enough to keep answers short. */
    private static final int EMBEDDING_DIMENSIONS = 16;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final RequestParser parser;

    PoolingAnswers(RequestParser parser) {
        this.parser = parser;
    }

    /**
     * One unit vector per input text, seeded by its tokens: a JSON array of numbers, or with
     * {@code "encoding_format": "base64"} the vector's float32 values, little-endian, base64-encoded, as OpenAI sends
     * them (and as its SDKs ask by default).
     */
    JsonNode embeddings(Buffer raw) {
        JsonNode root = parser.readObject(raw);
        boolean base64 = base64Requested(root.path("encoding_format"));
        List<String> texts = parser.texts(root.path("input"), "input");
        ObjectNode body = NODES.objectNode();
        body.put("object", "list");
        ArrayNode data = body.putArray("data");
        int tokens = 0;
        for (int i = 0; i < texts.size(); i++) {
            int[] ids = parser.encodeText(texts.get(i));
            tokens += ids.length;
            ObjectNode item = data.addObject();
            item.put("object", "embedding");
            item.put("index", i);
            if (base64) {
                item.put("embedding", float32Base64(embedding(ids)));
            } else {
                ArrayNode vector = item.putArray("embedding");
                for (double value : embedding(ids)) {
                    vector.add(value);
                }
            }
        }
        body.put("model", parser.model(root));
        putUsage(body, tokens);
        return body;
    }

    /** Documents scored by the share of the query's words they contain; best first. */
    JsonNode rerank(Buffer raw) {
        JsonNode root = parser.readObject(raw);
        JsonNode query = root.path("query");
        if (!query.isString()) {
            throw new BadRequest("'query' must be a string");
        }
        List<String> documents = parser.texts(root.path("documents"), "documents");
        Set<String> queryWords = words(query.stringValue());
        List<ObjectNode> results = new ArrayList<>();
        for (int i = 0; i < documents.size(); i++) {
            Set<String> documentWords = words(documents.get(i));
            long shared = queryWords.stream().filter(documentWords::contains).count();
            ObjectNode result = NODES.objectNode();
            result.put("index", i);
            result.put("score", queryWords.isEmpty() ? 0 : (double) shared / queryWords.size());
            result.put("document", documents.get(i));
            results.add(result);
        }
        results.sort((a, b) -> Double.compare(b.path("score").doubleValue(), a.path("score").doubleValue()));
        ArrayNode body = NODES.arrayNode();
        results.forEach(body::add);
        return body;
    }

    /** Two classes per input, with a probability seeded by the text. */
    JsonNode classify(Buffer raw) {
        JsonNode root = parser.readObject(raw);
        List<String> texts = parser.texts(root.path("input"), "input");
        ObjectNode body = NODES.objectNode();
        body.put("id", "classify-" + Long.toHexString(PseudoWords.seedOf(parser.encodeText(texts.get(0)), 1)));
        body.put("object", "list");
        body.put("created", System.currentTimeMillis() / 1000);
        body.put("model", parser.model(root));
        ArrayNode data = body.putArray("data");
        int tokens = 0;
        for (int i = 0; i < texts.size(); i++) {
            int[] ids = parser.encodeText(texts.get(i));
            tokens += ids.length;
            double first = Math.abs(embedding(ids)[0]);
            ObjectNode item = data.addObject();
            item.put("index", i);
            item.put("label", first >= 0.5 ? "LABEL_0" : "LABEL_1");
            item.putArray("probs").add(first).add(1 - first);
            item.put("num_classes", 2);
        }
        putUsage(body, tokens);
        return body;
    }

    /** Whether {@code encoding_format} asks for base64; absent, null or {@code float} is an array of numbers. */
    private static boolean base64Requested(JsonNode format) {
        if (format.isMissingNode() || format.isNull() || format.isString() && format.stringValue().equals("float")) {
            return false;
        }
        if (format.isString() && format.stringValue().equals("base64")) {
            return true;
        }
        throw new BadRequest("'encoding_format' must be \"float\" or \"base64\"");
    }

    private static String float32Base64(double[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (double value : vector) {
            bytes.putFloat((float) value);
        }
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    private static double[] embedding(int[] tokens) {
        Random random = new Random(PseudoWords.seedOf(tokens, 0));
        double[] vector = new double[EMBEDDING_DIMENSIONS];
        double norm = 0;
        for (int i = 0; i < vector.length; i++) {
            vector[i] = random.nextGaussian();
            norm += vector[i] * vector[i];
        }
        for (int i = 0; i < vector.length; i++) {
            vector[i] /= Math.sqrt(norm);
        }
        return vector;
    }

    private static Set<String> words(String text) {
        Set<String> words = new HashSet<>();
        for (String word : text.toLowerCase(Locale.ROOT).split("\\W+")) {
            if (!word.isEmpty()) {
                words.add(word);
            }
        }
        return words;
    }

    private static void putUsage(ObjectNode body, int tokens) {
        ObjectNode usage = body.putObject("usage");
        usage.put("prompt_tokens", tokens);
        usage.put("total_tokens", tokens);
    }
}
