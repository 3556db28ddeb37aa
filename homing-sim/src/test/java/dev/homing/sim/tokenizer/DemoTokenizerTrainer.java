package dev.homing.sim.tokenizer;

import dev.homing.sim.model.PseudoWords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Trains homing-tokenizer's bundled demo tokenizer: a byte-level BPE (GPT-2's layout: bytes mapped to printable
 * characters, words split by GPT-2's pattern) over the simulated engine's answers, the text its engine writes, with
 * ChatML's special tokens added. Deterministic: the most frequent pair is merged first, ties to the smaller pair
 * by text, so the same code writes the same file ({@code DemoTokenizerTest} checks the one checked in).
 *
 * <p>Run {@code DemoTokenizerTest} with {@code -Ddemo-tokenizer.write=true} to write it again.
 */
public final class DemoTokenizerTrainer {
    /** Merges learnt: a few thousand, so common pseudo-words are one token and rarer ones two or three. */
    static final int MERGES = 3000;
    /**
     * Answers trained on, each {@value #WORDS_PER_ANSWER} words. Word i of seed s is drawn from s + i, so the seeds
     * step by the answer's length: no two answers share a word draw.
     */
    static final int ANSWERS = 4000;
    static final int WORDS_PER_ANSWER = 32;
    /** ChatML's special tokens, after the learnt vocabulary. */
    static final List<String> SPECIAL_TOKENS = List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>");
    /** Where the trainer writes, relative to homing-sim. */
    static final Path OUTPUT = Path.of("..", "homing-tokenizer", "src", "main", "resources", "dev", "homing",
        "tokenizer", "demo", "tokenizer.json");

    /** GPT-2's pre-tokenizer pattern, which HuggingFace's ByteLevel pre-tokenizer applies with use_regex. */
    private static final Pattern WORDS = Pattern.compile(
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
    private static final char[] BYTE_CHARS = byteChars();

    private DemoTokenizerTrainer() {
    }

    public static void main(String[] args) throws IOException {
        Path out = args.length > 0 ? Path.of(args[0]) : OUTPUT;
        Files.writeString(out, train());
    }

    /** The demo tokenizer.json's text. */
    static String train() {
        Map<String, Integer> wordCounts = new TreeMap<>();
        for (int answer = 0; answer < ANSWERS; answer++) {
            long seed = (long) answer * WORDS_PER_ANSWER;
            Matcher words = WORDS.matcher(PseudoWords.text(seed, 0, WORDS_PER_ANSWER, WORDS_PER_ANSWER));
            while (words.find()) {
                wordCounts.merge(byteLevel(words.group()), 1, Integer::sum);
            }
        }
        Bpe bpe = new Bpe(wordCounts);
        for (int i = 0; i < MERGES && bpe.mergeMostFrequent(); i++) {
            // each round learns one merge
        }
        return json(bpe);
    }

    /** GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others for characters from 256 on. */
    private static char[] byteChars() {
        char[] chars = new char[256];
        int next = 256;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            chars[b] = printable ? (char) b : (char) next++;
        }
        return chars;
    }

    private static String byteLevel(String word) {
        StringBuilder out = new StringBuilder();
        for (byte b : word.getBytes(StandardCharsets.UTF_8)) {
            out.append(BYTE_CHARS[b & 0xFF]);
        }
        return out.toString();
    }

    private static String json(Bpe bpe) {
        JsonMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
        ObjectNode root = mapper.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        int id = bpe.symbols.size();
        for (String special : SPECIAL_TOKENS) {
            added.addObject().put("id", id++).put("content", special).put("single_word", false).put("lstrip", false)
                .put("rstrip", false).put("normalized", false).put("special", true);
        }
        root.putNull("normalizer");
        root.set("pre_tokenizer", byteLevelStep(mapper, false));
        root.set("post_processor", byteLevelStep(mapper, false));
        root.set("decoder", byteLevelStep(mapper, true));
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.putNull("continuing_subword_prefix");
        model.putNull("end_of_word_suffix");
        model.put("fuse_unk", false);
        model.put("byte_fallback", false);
        model.put("ignore_merges", false);
        ObjectNode vocab = model.putObject("vocab");
        for (int i = 0; i < bpe.symbols.size(); i++) {
            vocab.put(bpe.symbols.get(i), i);
        }
        ArrayNode merges = model.putArray("merges");
        bpe.merges.forEach(merges::add);
        return mapper.writeValueAsString(root) + "\n";
    }

    private static ObjectNode byteLevelStep(JsonMapper mapper, boolean addPrefixSpace) {
        return mapper.createObjectNode().put("type", "ByteLevel").put("add_prefix_space", addPrefixSpace)
            .put("trim_offsets", true).put("use_regex", true);
    }

    /** Byte-pair merging over the distinct words, their pair counts kept up to date as words change. */
    private static final class Bpe {
        /** Token texts by id: the 256 byte characters in byte order, then each merge's result. */
        final List<String> symbols = new ArrayList<>();
        final List<String> merges = new ArrayList<>();
        private final List<int[]> words = new ArrayList<>();
        private final List<Integer> counts = new ArrayList<>();
        private final Map<Long, Long> pairCounts = new HashMap<>();
        private final Map<String, Integer> ids = new HashMap<>();

        Bpe(Map<String, Integer> wordCounts) {
            for (char c : BYTE_CHARS) {
                idOf(String.valueOf(c));
            }
            wordCounts.forEach((word, count) -> {
                int[] ws = new int[word.length()];
                for (int i = 0; i < ws.length; i++) {
                    ws[i] = ids.get(String.valueOf(word.charAt(i)));
                }
                words.add(ws);
                counts.add(count);
                countPairs(ws, count);
            });
        }

        /** Learns the most frequent pair (ties: the smaller by text); false when no pair occurs twice. */
        boolean mergeMostFrequent() {
            long best = -1;
            long bestCount = 1;
            for (Map.Entry<Long, Long> pair : pairCounts.entrySet()) {
                long count = pair.getValue();
                if (count > bestCount || (count == bestCount && best >= 0 && smaller(pair.getKey(), best))) {
                    best = pair.getKey();
                    bestCount = count;
                }
            }
            if (best < 0) {
                return false;
            }
            int left = (int) (best >>> 32);
            int right = (int) best;
            // Two merges may spell the same token ("ab" + "c", "a" + "bc"): it keeps one id.
            int merged = idOf(symbols.get(left) + symbols.get(right));
            merges.add(symbols.get(left) + " " + symbols.get(right));
            for (int w = 0; w < words.size(); w++) {
                int[] word = words.get(w);
                if (contains(word, left, right)) {
                    countPairs(word, -counts.get(w));
                    int[] replaced = replace(word, left, right, merged);
                    words.set(w, replaced);
                    countPairs(replaced, counts.get(w));
                }
            }
            return true;
        }

        private int idOf(String text) {
            return ids.computeIfAbsent(text, t -> {
                symbols.add(t);
                return symbols.size() - 1;
            });
        }

        private boolean smaller(long pair, long than) {
            int byLeft = symbols.get((int) (pair >>> 32)).compareTo(symbols.get((int) (than >>> 32)));
            return byLeft != 0 ? byLeft < 0 : symbols.get((int) pair).compareTo(symbols.get((int) than)) < 0;
        }

        private void countPairs(int[] word, long count) {
            for (int i = 0; i + 1 < word.length; i++) {
                long key = (long) word[i] << 32 | word[i + 1];
                long total = pairCounts.getOrDefault(key, 0L) + count;
                if (total == 0) {
                    pairCounts.remove(key);
                } else {
                    pairCounts.put(key, total);
                }
            }
        }

        private static boolean contains(int[] word, int left, int right) {
            for (int i = 0; i + 1 < word.length; i++) {
                if (word[i] == left && word[i + 1] == right) {
                    return true;
                }
            }
            return false;
        }

        private static int[] replace(int[] word, int left, int right, int merged) {
            int[] out = new int[word.length];
            int n = 0;
            for (int i = 0; i < word.length; i++) {
                if (i + 1 < word.length && word[i] == left && word[i + 1] == right) {
                    out[n++] = merged;
                    i++;
                } else {
                    out[n++] = word[i];
                }
            }
            return Arrays.copyOf(out, n);
        }
    }
}
