package dev.homing.tokenizer;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A chat template's source made into what Jinjava reads as Python's Jinja, with transformers' options, reads the
 * original. Jinjava parses the same language with a few differences that chat templates meet; each rewrite here
 * removes one, so that the rendered prompt is the engine's to the character (a measured list, in the tests).
 */
final class JinjaSource {

    /** Spaces and tabs that open a line before a block tag (not {@code {%+}) or a comment: lstrip_blocks drops them. */
    private static final Pattern LINE_OPENING_TAG_INDENT = Pattern.compile("(?m)^[ \\t]+(?=\\{%(?!\\+)|\\{#)");
    /** A statement or an expression tag; a string holding its own closing delimiter is not expected in a template. */
    private static final Pattern TAG = Pattern.compile("\\{\\{.*?}}|\\{%.*?%}", Pattern.DOTALL);
    /** A name, its attributes and subscripts: what a reversal or a test applies to. */
    private static final String OPERAND = "[A-Za-z_][\\w.]*(?:\\[[^\\[\\]]*])*";
    private static final Pattern REVERSED = Pattern.compile("(" + OPERAND + ")\\[::-1]");
    private static final Pattern NOT_TEST = Pattern.compile(
            "\\bnot\\s+(" + OPERAND + ")\\s+is\\s+(not\\s+)?([A-Za-z_]\\w*)\\b");
    /** A keyword argument's name, just after the call's parenthesis or a comma. */
    private static final Pattern KEYWORD = Pattern.compile("[(,]\\s*[A-Za-z_]\\w*\\s*=(?!=)");
    private static final Pattern MACRO_TAG = Pattern.compile("\\{%[-+]?\\s*(?:macro|call)\\b");
    /** What makes a keyword argument's value an expression Jinjava would split: an operator or a filter. */
    private static final Pattern OPERATOR = Pattern.compile("[-+*/%|~]");

    private JinjaSource() {
    }

    /**
     * {@code template} as Jinjava must read it to render what Jinja renders:
     * <ul>
     *   <li>line ends made {@code \n} (newline_sequence), one newline at the end dropped (keep_trailing_newline off:
     *       a {@code chat_template.jinja} file ends with one);</li>
     *   <li>lstrip_blocks done here: the spaces and tabs that open a line are dropped before a block tag or a
     *       comment, and only there ({@code {%+} keeps them), where Jinjava's option also strips before a tag in
     *       mid-line;</li>
     *   <li>inside tags, {@code x[::-1]} (a step, which Jinjava's slices lack) read as {@code (x|reverse|list)};</li>
     *   <li>inside tags, {@code not x is defined} read as {@code not (x is defined)}: Jinja tests bind tighter than
     *       {@code not}, Jinjava's {@code not} tighter than tests (so Llama 3.1's {@code not date_string is defined}
     *       was always true, and its date the template's fallback);</li>
     *   <li>inside tags but for macro definitions, a keyword argument's value that holds an operator or a filter
     *       put in parentheses: Jinjava binds {@code =} tighter, so Qwen3's
     *       {@code namespace(last_query_index=messages|length - 1)} subtracted 1 from the argument itself.</li>
     * </ul>
     */
    static String asJinjaReadsIt(String template) {
        String source = template.replace("\r\n", "\n").replace('\r', '\n');
        if (source.endsWith("\n")) {
            source = source.substring(0, source.length() - 1);
        }
        source = LINE_OPENING_TAG_INDENT.matcher(source).replaceAll("");
        Matcher tags = TAG.matcher(source);
        StringBuilder out = new StringBuilder(source.length());
        while (tags.find()) {
            String tag = REVERSED.matcher(tags.group()).replaceAll("($1|reverse|list)");
            tag = NOT_TEST.matcher(tag).replaceAll("not ($1 is $2$3)");
            tag = parenthesizeKeywordValues(tag);
            tags.appendReplacement(out, Matcher.quoteReplacement(tag));
        }
        tags.appendTail(out);
        return out.toString();
    }

    /** {@code f(a=x - 1)} made {@code f(a=(x - 1))}; values without an operator or a filter are left as they are. */
    private static String parenthesizeKeywordValues(String tag) {
        if (MACRO_TAG.matcher(tag).lookingAt()) {
            return tag;
        }
        StringBuilder out = new StringBuilder(tag.length() + 8);
        Matcher keyword = KEYWORD.matcher(tag);
        int copied = 0;
        int from = 0;
        while (keyword.find(from)) {
            int start = keyword.end();
            int end = valueEnd(tag, start);
            String value = tag.substring(start, end);
            if (OPERATOR.matcher(withoutStrings(value)).find()) {
                out.append(tag, copied, start).append(" (").append(value.strip()).append(')');
                copied = end;
            }
            from = Math.max(start, end - 1);
        }
        return out.append(tag, copied, tag.length()).toString();
    }

    /** Where the value from {@code start} ends: the next comma or closing bracket outside brackets and quotes. */
    private static int valueEnd(String tag, int start) {
        int depth = 0;
        char quote = 0;
        for (int i = start; i < tag.length(); i++) {
            char c = tag.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}' || c == ',') {
                if (depth == 0) {
                    return i;
                }
                if (c != ',') {
                    depth--;
                }
            }
        }
        return tag.length();
    }

    private static String withoutStrings(String value) {
        return value.replaceAll("'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"", "''");
    }
}
