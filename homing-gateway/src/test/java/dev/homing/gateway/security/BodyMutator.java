package dev.homing.gateway.security;

import dev.homing.gateway.proxy.InferenceRoute;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Seeded request bodies for fuzzing: a valid body for the route, then a few structural mutations (type swaps,
 * dropped and added fields, huge strings), then sometimes byte-level damage (truncation, random bytes, invalid
 * UTF-8, deep nesting spliced into the text). The same seed gives the same sequence. Not thread-safe.
 */
final class BodyMutator {

    private static final JsonMapper JSON = JsonMapper.shared();
    /** Deep enough to pass the parser's nesting limit by far, small enough to stay under the test body limit. */
    private static final int MAX_NESTING = 3000;
    /** Huge strings: around the 64 KiB body limit of the fuzzed gateway, so both sides of it are hit. */
    private static final int MAX_STRING = 80_000;

    private final SplittableRandom random;

    BodyMutator(long seed) {
        this.random = new SplittableRandom(seed);
    }

    InferenceRoute route() {
        InferenceRoute[] routes = InferenceRoute.values();
        return routes[random.nextInt(routes.length)];
    }

    byte[] next(InferenceRoute route) {
        Map<String, Object> doc = valid(route);
        int structural = random.nextInt(4);
        for (int i = 0; i < structural; i++) {
            mutateTree(doc);
        }
        byte[] bytes = JSON.writeValueAsBytes(doc);
        return random.nextInt(3) == 0 ? damage(bytes) : bytes;
    }

    private Map<String, Object> valid(InferenceRoute route) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("model", random.nextBoolean() ? "model-a" : "model-b");
        if (random.nextBoolean()) {
            doc.put("stream", random.nextBoolean());
        }
        List<Object> messages = List.of(Map.of("role", "system", "content", "be brief"),
                Map.of("role", "user", "content", List.of(Map.of("type", "text", "text", "hi"))));
        switch (route) {
            case CHAT -> {
                doc.put("messages", messages);
                if (random.nextBoolean()) {
                    doc.put("tools", List.of(Map.of("type", "function", "function", Map.of("name", "f"))));
                }
            }
            case COMPLETIONS -> doc.put("prompt", random.nextBoolean() ? "once upon" : List.of(1, 2, 3));
            case GENERATE -> doc.put(random.nextBoolean() ? "text" : "input_ids",
                    random.nextBoolean() ? "hello" : List.of(5, 6));
            case EMBEDDINGS, CLASSIFY -> doc.put("input", List.of("a", "b"));
            case RERANK, RERANK_LEGACY -> {
                doc.put("query", "q");
                doc.put("documents", List.of("a", "b"));
            }
            case RESPONSES -> {
                doc.put("instructions", "be brief");
                doc.put("input", random.nextBoolean() ? "hi" : messages);
            }
        }
        doc.put("max_tokens", 8);
        return doc;
    }

    private void mutateTree(Map<String, Object> doc) {
        List<String> keys = new ArrayList<>(doc.keySet());
        String key = keys.isEmpty() ? "model" : keys.get(random.nextInt(keys.size()));
        switch (random.nextInt(4)) {
            case 0 -> doc.put(key, randomValue(3));
            case 1 -> doc.remove(key);
            case 2 -> doc.put("x" + random.nextInt(100), randomValue(3));
            default -> doc.put(key, hugeString());
        }
    }

    private Object randomValue(int depth) {
        int kind = random.nextInt(depth > 0 ? 9 : 7);
        return switch (kind) {
            case 0 -> null;
            case 1 -> random.nextBoolean();
            case 2 -> random.nextLong();
            case 3 -> random.nextDouble() * 1e300;
            case 4 -> new java.math.BigInteger(200, new java.util.Random(random.nextLong()));
            case 5 -> randomText(random.nextInt(20));
            case 6 -> "";
            case 7 -> {
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    list.add(randomValue(depth - 1));
                }
                yield list;
            }
            default -> {
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    map.put(randomText(5), randomValue(depth - 1));
                }
                yield map;
            }
        };
    }

    /** Text from printable ASCII, controls, accents, CJK and emoji (whole surrogate pairs). */
    private String randomText(int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int cp = switch (random.nextInt(5)) {
                case 0 -> random.nextInt(0x20);
                case 1 -> 0x20 + random.nextInt(0x5f);
                case 2 -> 0xc0 + random.nextInt(0x100);
                case 3 -> 0x4e00 + random.nextInt(0x500);
                default -> 0x1f600 + random.nextInt(0x50);
            };
            sb.appendCodePoint(cp);
        }
        return sb.toString();
    }

    private String hugeString() {
        return "z".repeat(random.nextInt(MAX_STRING));
    }

    private byte[] damage(byte[] bytes) {
        return switch (random.nextInt(6)) {
            case 0 -> java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
            case 1 -> flipBytes(bytes);
            case 2 -> insert(bytes, randomBytes(1 + random.nextInt(8)));
            case 3 -> insert(bytes, invalidUtf8());
            case 4 -> spliceNesting(bytes);
            default -> randomBytes(random.nextInt(200));
        };
    }

    private byte[] flipBytes(byte[] bytes) {
        byte[] out = bytes.clone();
        for (int i = 1 + random.nextInt(4); i > 0 && out.length > 0; i--) {
            out[random.nextInt(out.length)] = (byte) random.nextInt(256);
        }
        return out;
    }

    private byte[] insert(byte[] bytes, byte[] extra) {
        int at = random.nextInt(bytes.length + 1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, at);
        out.writeBytes(extra);
        out.write(bytes, at, bytes.length - at);
        return out.toByteArray();
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    private byte[] invalidUtf8() {
        byte[][] options = {{(byte) 0xff}, {(byte) 0xc3}, {(byte) 0xc0, (byte) 0xaf}, {(byte) 0xed, (byte) 0xa0,
                (byte) 0x80}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0x80}};
        return options[random.nextInt(options.length)];
    }

    /** Replaces the value of the first field with thousands of nested arrays or objects, balanced or not. */
    private byte[] spliceNesting(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        int colon = text.indexOf(':');
        if (colon < 0) {
            return bytes;
        }
        int depth = 1 + random.nextInt(MAX_NESTING);
        boolean arrays = random.nextBoolean();
        String open = (arrays ? "[" : "{\"a\":").repeat(depth);
        String close = (arrays ? "]" : "}").repeat(random.nextBoolean() ? depth : random.nextInt(depth + 1));
        String inner = arrays ? "" : "1";
        return (text.substring(0, colon + 1) + open + inner + close + ",\"rest\":" + text.substring(colon + 1))
                .getBytes(StandardCharsets.UTF_8);
    }
}
