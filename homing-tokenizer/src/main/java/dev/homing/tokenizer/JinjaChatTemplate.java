package dev.homing.tokenizer;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A HuggingFace chat template ({@code tokenizer_config.json}'s {@code chat_template}) rendered as transformers
 * renders it: Jinja with {@code trim_blocks} and {@code lstrip_blocks}, given {@code messages} (each with
 * {@code role} and {@code content}), {@code add_generation_prompt}, {@code bos_token} and {@code eos_token}, and the
 * {@code raise_exception} function. Thread-safe: every render has an interpreter of its own.
 */
public final class JinjaChatTemplate {
    /** A rendered chat larger than this is refused: far beyond any context, it can only be a runaway template. */
    private static final long MAX_OUTPUT_CHARS = 64L << 20;

    private final String template;
    private final String bosToken;
    private final String eosToken;
    private final Jinjava jinjava;

    /**
     * @param template the template's Jinja source
     * @param bosToken the tokenizer's BOS token text, or "" when it declares none
     * @param eosToken the tokenizer's EOS token text, or "" when it declares none
     */
    public JinjaChatTemplate(String template, String bosToken, String eosToken) {
        this.template = Objects.requireNonNull(template, "template");
        this.bosToken = Objects.requireNonNull(bosToken, "bosToken");
        this.eosToken = Objects.requireNonNull(eosToken, "eosToken");
        JinjavaConfig config = JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            .withLstripBlocks(true)
            .withMaxOutputSize(MAX_OUTPUT_CHARS)
            // A message's text is text: Jinjava would otherwise render "{{ ... }}" found in a value it prints.
            .withNestedInterpretationEnabled(false)
            // Jinja's precedence: a filter binds tighter than +, as in "'a' + content | trim".
            .withLegacyOverrides(LegacyOverrides.newBuilder().withUseNaturalOperatorPrecedence(true)
                .withParseWhitespaceControlStrictly(true).build())
            .build();
        jinjava = new Jinjava(config);
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
            JinjaChatTemplate.class, "raiseException", String.class));
    }

    /** The prompt text of {@code turns}, ending with the generation prompt when {@code addGenerationPrompt}. */
    public String render(List<ChatTurn> turns, boolean addGenerationPrompt) {
        List<Map<String, Object>> messages = new ArrayList<>(turns.size());
        for (ChatTurn turn : turns) {
            messages.add(Map.of("role", turn.role(), "content", turn.content()));
        }
        Map<String, Object> bindings = new HashMap<>();
        bindings.put("messages", messages);
        bindings.put("add_generation_prompt", addGenerationPrompt);
        bindings.put("bos_token", bosToken);
        bindings.put("eos_token", eosToken);
        RenderResult result = jinjava.renderForResult(template, bindings);
        for (TemplateError error : result.getErrors()) {
            if (error.getSeverity() == TemplateError.ErrorType.FATAL) {
                throw new ChatTemplateException("the chat template refused the messages: " + reason(error));
            }
        }
        return result.getOutput();
    }

    /** Called by templates as {@code raise_exception('why')}: the chat is refused with that reason. */
    public static String raiseException(String message) {
        throw new TemplateRaised(message);
    }

    private static String reason(TemplateError error) {
        Throwable cause = error.getException();
        while (cause != null) {
            if (cause instanceof TemplateRaised raised) {
                return raised.getMessage();
            }
            cause = cause.getCause();
        }
        return error.getMessage();
    }

    /** What {@code raise_exception} throws through Jinjava, to be found again among its errors. */
    private static final class TemplateRaised extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TemplateRaised(String message) {
            super(message, null, false, false);
        }
    }
}
