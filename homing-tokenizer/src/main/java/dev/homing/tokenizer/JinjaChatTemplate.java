package dev.homing.tokenizer;

import com.google.common.collect.SetMultimap;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.tree.Node;
import jinjava.javax.el.CompositeELResolver;
import jinjava.javax.el.ELResolver;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A HuggingFace chat template ({@code tokenizer_config.json}'s {@code chat_template}) rendered as transformers
 * renders it: Jinja with {@code trim_blocks} and {@code lstrip_blocks} (the source read as Jinja reads it,
 * {@link JinjaSource}), given {@code messages} (each with {@code role} and {@code content}),
 * {@code add_generation_prompt}, {@code bos_token} and {@code eos_token}, and transformers' {@code raise_exception},
 * {@code strftime_now} and {@code tojson}, with Python's string methods ({@link PythonStrings}).
 * The template is parsed once; each render walks that tree with an interpreter and a context of its own, so renders
 * may run on several threads at once.
 */
public final class JinjaChatTemplate {
    /** A rendered chat larger than this is refused: far beyond any context, it can only be a runaway template. */
    private static final long MAX_OUTPUT_CHARS = 64L << 20;
    private static final String STRFTIME_NOW = "strftime_now";

    private final String bosToken;
    private final String eosToken;
    private final Jinjava jinjava;
    private final RenderBase base;
    private final Node tree;
    /** What parsing found wrong (FATAL ones refuse every chat, as rendering the source each time would). */
    private final List<TemplateError> parseErrors;

    /**
     * @param template the template's Jinja source
     * @param bosToken the tokenizer's BOS token text, or "" when it declares none
     * @param eosToken the tokenizer's EOS token text, or "" when it declares none
     */
    public JinjaChatTemplate(String template, String bosToken, String eosToken) {
        Objects.requireNonNull(template, "template");
        this.bosToken = Objects.requireNonNull(bosToken, "bosToken");
        this.eosToken = Objects.requireNonNull(eosToken, "eosToken");
        JinjavaConfig config = JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            // lstrip_blocks is done on the source (JinjaSource): Jinjava's also strips before a tag in mid-line.
            .withLstripBlocks(false)
            .withElResolver(pythonFirst())
            .withMaxOutputSize(MAX_OUTPUT_CHARS)
            // A message's text is text: Jinjava would otherwise render "{{ ... }}" found in a value it prints.
            .withNestedInterpretationEnabled(false)
            // Jinja's precedence: a filter binds tighter than +, as in "'a' + content | trim".
            .withLegacyOverrides(LegacyOverrides.newBuilder().withUseNaturalOperatorPrecedence(true)
                .withParseWhitespaceControlStrictly(true)
                // "{{-" and "-}}" strip as "{%-" does (Jinjava's default keeps the space around expressions).
                // Its Python-style printing of lists (['a', 'b']) is left off: it doubled a long chat's render time,
                // and chat templates print strings.
                .withUseTrimmingForNotesAndExpressions(true).build())
            .build();
        jinjava = new Jinjava(config);
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
            JinjaChatTemplate.class, "raiseException", String.class));
        jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", STRFTIME_NOW,
            JinjaChatTemplate.class, "strftimeNow", String.class));
        jinjava.getGlobalContext().registerFilter(new PythonJson());
        base = new RenderBase(jinjava.getGlobalContext());
        JinjavaInterpreter parser = interpreter(Map.of());
        tree = parser.parse(JinjaSource.asJinjaReadsIt(template));
        parseErrors = parser.getErrorsCopy();
    }

    /** What parsing found fatally wrong with the template, or null when it parsed. */
    String parseProblem() {
        return fatal(parseErrors);
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
        // Jinja's globals are variables too: templates ask "strftime_now is defined" before calling it.
        bindings.put(STRFTIME_NOW, STRFTIME_NOW);
        refuseOnFatal(parseErrors);
        JinjavaInterpreter interpreter = interpreter(bindings);
        String output;
        JinjavaInterpreter.pushCurrent(interpreter);
        try {
            output = interpreter.render(tree);
        } catch (RuntimeException e) {
            // What Jinjava's renderForResult turns into a fatal error: a syntax or argument error found while rendering.
            throw new ChatTemplateException("the chat template refused the messages: " + reason(e));
        } finally {
            JinjavaInterpreter.popCurrent();
        }
        refuseOnFatal(interpreter.getErrorsCopy());
        return output;
    }

    /**
     * An interpreter over a fresh context holding {@code bindings}, whose parent is the shared {@link RenderBase}:
     * Jinjava's own {@code renderForResult} copies the global context and registers every built-in filter, tag and
     * function again for each render, which costs more than rendering a chat.
     */
    private JinjavaInterpreter interpreter(Map<String, Object> bindings) {
        Context context = new Context(base, bindings, jinjava.getGlobalConfig().getDisabled());
        return new JinjavaInterpreter(jinjava, context, jinjava.getGlobalConfig());
    }

    private static void refuseOnFatal(List<TemplateError> errors) {
        String fatal = fatal(errors);
        if (fatal != null) {
            throw new ChatTemplateException("the chat template refused the messages: " + fatal);
        }
    }

    /** The reason of the first fatal error among {@code errors}, or null when there is none. */
    private static String fatal(List<TemplateError> errors) {
        for (TemplateError error : errors) {
            if (error.getSeverity() == TemplateError.ErrorType.FATAL) {
                return reason(error);
            }
        }
        return null;
    }

    /** Python's string methods first, then Jinjava's own resolution (read-only, its default). */
    private static ELResolver pythonFirst() {
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PythonStrings());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
        return resolver;
    }

    /** Called by templates as {@code strftime_now('%d %b %Y')}: the local time now, as transformers gives it. */
    public static String strftimeNow(String format) {
        return PythonStrftime.format(format, ZonedDateTime.now());
    }

    /** Called by templates as {@code raise_exception('why')}: the chat is refused with that reason. */
    public static String raiseException(String message) {
        throw new TemplateRaised(message);
    }

    private static String reason(TemplateError error) {
        String raised = raisedReason(error.getException());
        return raised != null ? raised : error.getMessage();
    }

    private static String reason(RuntimeException e) {
        String raised = raisedReason(e);
        return raised != null ? raised : e.getMessage();
    }

    private static String raisedReason(Throwable thrown) {
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            if (cause instanceof TemplateRaised raised) {
                return raised.getMessage();
            }
        }
        return null;
    }

    /**
     * The parent of every render's context: Jinjava's global context (the built-ins and {@code raise_exception}) seen
     * read-only. A context reports what it resolved to its parent, all the way up; stopping that here keeps the
     * shared contexts unchanged by renders, so concurrent renders do not race on them nor make them grow.
     */
    private static final class RenderBase extends Context {
        RenderBase(Context global) {
            super(global);
        }

        @Override
        public void addResolvedExpression(String expression) {
        }

        @Override
        public void addResolvedValue(String value) {
        }

        @Override
        public void addResolvedFunction(String function) {
        }

        @Override
        public void addDependency(String type, String identification) {
        }

        @Override
        public void addDependencies(SetMultimap<String, String> dependencies) {
        }
    }

    /** What {@code raise_exception} throws through Jinjava, to be found again among its errors. */
    private static final class TemplateRaised extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TemplateRaised(String message) {
            super(message, null, false, false);
        }
    }
}
