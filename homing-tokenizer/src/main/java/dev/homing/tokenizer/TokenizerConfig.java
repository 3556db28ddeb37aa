package dev.homing.tokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a tokenizer's files say that tokenization needs: the chat template, and the BOS and EOS tokens the template
 * may write. The template comes, first found first, from a file the operator names (as the engine's own
 * {@code --chat-template}), from {@code chat_template.jinja} beside {@code tokenizer.json} (where transformers since
 * 4.47 saves it, and which it prefers to the configuration's), from {@code tokenizer_config.json}'s
 * {@code chat_template}, else {@link #DEFAULT_TEMPLATE}, the ChatML layout.
 *
 * @param chatTemplate the template's Jinja source
 * @param bosToken     the BOS token's text, or "" when the configuration declares none
 * @param eosToken     the EOS token's text, or "" when it declares none
 */
record TokenizerConfig(String chatTemplate, String bosToken, String eosToken) {
    /** ChatML, the template vLLM and SGLang fall back to for a model that names none. */
    static final String DEFAULT_TEMPLATE = "{% for message in messages %}"
        + "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
        + "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
    static final TokenizerConfig NONE = new TokenizerConfig(DEFAULT_TEMPLATE, "", "");
    /** The file transformers keeps a model's chat template in, beside {@code tokenizer.json}. */
    static final String TEMPLATE_FILE = "chat_template.jinja";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * The configuration beside {@code tokenizerJson}: its {@code tokenizer_config.json} (else {@link #NONE}), with the
     * template of a {@value #TEMPLATE_FILE} there in place of its own.
     */
    static TokenizerConfig besides(Path tokenizerJson) {
        Path configFile = tokenizerJson.resolveSibling("tokenizer_config.json");
        TokenizerConfig config = Files.isRegularFile(configFile) ? read(configFile) : NONE;
        Path templateFile = tokenizerJson.resolveSibling(TEMPLATE_FILE);
        return Files.isRegularFile(templateFile) ? config.withChatTemplate(readTemplate(templateFile)) : config;
    }

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
        return new TokenizerConfig(template == null ? DEFAULT_TEMPLATE : template, tokenText(root.path("bos_token")),
            tokenText(root.path("eos_token")));
    }

    /** The Jinja source in {@code file}, which must not be empty. */
    static String readTemplate(Path file) {
        String template;
        try {
            template = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the chat template " + file + ": " + e.getMessage(), e);
        }
        if (template.isBlank()) {
            throw new IllegalArgumentException("the chat template " + file + " is empty");
        }
        return template;
    }

    /**
     * This configuration with the Jinja template in {@code file} as its chat template: a file the operator names, so
     * a template that does not parse is refused now rather than on every chat.
     */
    TokenizerConfig withChatTemplateFile(Path file) {
        String template = readTemplate(file);
        String problem = new JinjaChatTemplate(template, bosToken, eosToken).parseProblem();
        if (problem != null) {
            throw new IllegalArgumentException("the chat template " + file + " does not parse: " + problem);
        }
        return withChatTemplate(template);
    }

    /** This configuration with {@code template} as its chat template. */
    TokenizerConfig withChatTemplate(String template) {
        return new TokenizerConfig(template, bosToken, eosToken);
    }

    /** The chat template, parsed, with this configuration's BOS and EOS tokens. */
    JinjaChatTemplate template() {
        return new JinjaChatTemplate(chatTemplate, bosToken, eosToken);
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
