package dev.homing.tokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What {@code tokenizer_config.json} says that tokenization needs: the chat template, and the BOS and EOS tokens the
 * template may write. A tokenizer without one gets {@link #DEFAULT_TEMPLATE}, the ChatML layout.
 */
record TokenizerConfig(JinjaChatTemplate template) {
    /** ChatML, the template vLLM and SGLang fall back to for a model that names none. */
    static final String DEFAULT_TEMPLATE = "{% for message in messages %}"
        + "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
        + "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
    static final TokenizerConfig NONE = new TokenizerConfig(new JinjaChatTemplate(DEFAULT_TEMPLATE, "", ""));

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static TokenizerConfig read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    static TokenizerConfig read(InputStream in, String what) {
        JsonNode root;
        try {
            root = JSON.readTree(in);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(what + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(what + " must be a JSON object");
        }
        String template = chatTemplate(root.path("chat_template"), what);
        return new TokenizerConfig(new JinjaChatTemplate(template == null ? DEFAULT_TEMPLATE : template,
            tokenText(root.path("bos_token")), tokenText(root.path("eos_token"))));
    }

    /** A template string, or the one named "default" of a list of named templates; null when there is none. */
    private static String chatTemplate(JsonNode node, String what) {
        if (node.isString()) {
            return node.stringValue();
        }
        if (node.isArray()) {
            for (JsonNode named : node) {
                if ("default".equals(named.path("name").stringValue(null)) && named.path("template").isString()) {
                    return named.path("template").stringValue();
                }
            }
            throw new IllegalArgumentException(what + ": chat_template lists no template named 'default'");
        }
        return null;
    }

    /** A special token as written: a string, or an added-token object's {@code content}; "" when absent. */
    private static String tokenText(JsonNode node) {
        if (node.isString()) {
            return node.stringValue();
        }
        return node.path("content").isString() ? node.path("content").stringValue() : "";
    }
}
