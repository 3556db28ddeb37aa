package dev.homing.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JinjaChatTemplateTest {
    /**
     * Qwen's layout: ChatML, refusing roles it does not know. Written over lines as templates are: a block tag's
     * indent and line end go (lstrip_blocks, trim_blocks), an expression's stay, and Jinja's own escapes ('\\n') are
     * newlines.
     */
    static final String CHATML = """
        {% for message in messages %}
            {% if message['role'] not in ['system', 'user', 'assistant'] %}
        {{ raise_exception('Unknown role: ' + message['role']) }}
            {% endif %}
        {{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}
        {%- endfor %}
        {% if add_generation_prompt %}
        {{ '<|im_start|>assistant\\n' }}
        {%- endif %}""";
    /** Llama 3's layout: the BOS token first, each message trimmed between header tokens. */
    static final String LLAMA_3 = "{% set loop_messages = messages %}{% for message in loop_messages %}"
        + "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'"
        + "+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
        + "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
        + "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";

    private static final List<ChatTurn> CHAT = List.of(new ChatTurn("system", "You are terse."),
        new ChatTurn("user", "  Name a river.  "));

    @Test
    void aChatMlTemplateWritesEachMessageBetweenItsMarkersThenTheGenerationPrompt() {
        JinjaChatTemplate template = new JinjaChatTemplate(CHATML, "", "<|im_end|>");

        assertThat(template.render(CHAT, true)).isEqualTo("<|im_start|>system\nYou are terse.<|im_end|>\n"
            + "<|im_start|>user\n  Name a river.  <|im_end|>\n<|im_start|>assistant\n");
        assertThat(template.render(CHAT, false)).isEqualTo("<|im_start|>system\nYou are terse.<|im_end|>\n"
            + "<|im_start|>user\n  Name a river.  <|im_end|>\n");
    }

    @Test
    void aLlama3TemplateStartsWithTheBosTokenAndTrimsEachMessage() {
        JinjaChatTemplate template = new JinjaChatTemplate(LLAMA_3, "<|begin_of_text|>", "<|eot_id|>");

        assertThat(template.render(CHAT, true)).isEqualTo("<|begin_of_text|>"
            + "<|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"
            + "<|start_header_id|>user<|end_header_id|>\n\nName a river.<|eot_id|>"
            + "<|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    @Test
    void aTemplatesRaisedExceptionRefusesTheChatWithItsReason() {
        JinjaChatTemplate template = new JinjaChatTemplate(CHATML, "", "");

        assertThatThrownBy(() -> template.render(List.of(new ChatTurn("tool", "42")), true))
            .isInstanceOf(ChatTemplateException.class).hasMessageContaining("Unknown role: tool");
    }

    @Test
    void aTemplateThatDoesNotParseRefusesEveryChat() {
        JinjaChatTemplate template = new JinjaChatTemplate("{% for message in messages %}{{ message['content'] }}",
            "", "");

        assertThatThrownBy(() -> template.render(CHAT, true)).isInstanceOf(ChatTemplateException.class)
            .hasMessageContaining("the chat template refused the messages");
        assertThatThrownBy(() -> template.render(CHAT, true)).isInstanceOf(ChatTemplateException.class);
    }

    @Test
    void aMessagesTextIsNeverReadAsTemplateSyntax() {
        JinjaChatTemplate template = new JinjaChatTemplate(CHATML, "", "");
        String content = "{{ 7 * 6 }} {% if true %}x{% endif %}";

        assertThat(template.render(List.of(new ChatTurn("user", content)), false))
            .isEqualTo("<|im_start|>user\n" + content + "<|im_end|>\n");
    }

    @Test
    void blockTagsLeaveNoWhitespaceBehindAsTransformersRendersThem() {
        JinjaChatTemplate template = new JinjaChatTemplate("""
              {% for message in messages %}
                {% if loop.first %}
            [{{ message['content'] }}]
                {% endif %}
              {% endfor %}""", "", "");

        assertThat(template.render(CHAT, false)).isEqualTo("[You are terse.]\n");
    }

    @Test
    void theSourceIsReadAsPythonsJinjaReadsItWithTransformersOptions() {
        // Each expected text is what Jinja 3 renders with trim_blocks and lstrip_blocks, as transformers sets it.
        Map<String, String> rendered = new LinkedHashMap<>();
        rendered.put("a {% if true %}b {% endif %}c", "a b c"); // lstrip only where the tag opens the line
        rendered.put("a\t{% if true %}b{% endif %}", "a\tb");
        rendered.put("q\n   {% if true %}x{% endif %}", "q\nx");
        rendered.put("q\n   {%+ if true %}x{% endif %}", "q\n   x"); // {%+ keeps the indent
        rendered.put("q\n   {# a comment #}x", "q\nx");
        rendered.put("q\n \t {%- if true %}x{% endif %}", "qx");
        rendered.put("q\r\n  {% if true %}x{% endif %}", "q\nx"); // line ends become \n
        rendered.put("a\r\nb", "a\nb");
        rendered.put("x{{ 1 }}\n", "x1"); // one newline at the end of the template is dropped...
        rendered.put("x\n\n", "x\n"); // ...and only one
        rendered.put("  {% if true %}x\n  {% endif %}y", "x\ny");
        rendered.put("{% if true %}\n    {{- 'a' }}{% endif %}", "a"); // {{- strips as {%- does
        rendered.put("x  {{- 'a' -}}  y", "xay");
        rendered.put("x {#- note -#} y", "xy");
        // A test binds tighter than not; a slice may step backwards.
        rendered.put("{% if not missing is defined %}a{% endif %}{% if not bos_token is defined %}b{% endif %}", "a");
        rendered.put("{% set l = ['x', 'y'] %}{% for c in l[::-1] %}{{ c }}{% endfor %}", "yx");
        // A keyword argument's value is a whole expression (Qwen3 counts its messages so).
        rendered.put("{% set ns = namespace(a=true, b=messages|length - 1) %}{{ ns.b }}", "-1");
        rendered.put("{{ 'a=b, c' ~ [1, 2]|join(d='-') if false else 'x' }}", "x");

        rendered.forEach((source, expected) -> assertThat(
            new JinjaChatTemplate(source, "", "").render(List.of(), false)).as(source).isEqualTo(expected));
    }

    @Test
    void pythonsStringMethodsReversedLoopsAndNamespacesRenderAsJinjaRendersThem() {
        JinjaChatTemplate template = new JinjaChatTemplate("""
            {%- set ns = namespace(last_user=-1) %}
            {%- for m in messages[::-1] %}
                {%- if ns.last_user < 0 and m.role == 'user' and not m.content.startswith('<result>') %}
                    {%- set ns.last_user = (messages|length - 1) - loop.index0 %}
                {%- endif %}
            {%- endfor %}
            {%- for m in messages %}
                {%- set text = m.content %}
                {%- if m.role == 'assistant' and '</reason>' in text %}
                    {%- set text = text.split('</reason>')[-1].lstrip('\\n') %}
                {%- endif %}
                {{- '<|' + m.role + '|>\\n' + text.strip() + '<|end|>\\n' }}
                {%- if loop.index0 == ns.last_user %}
                    {{- '<|mark|>\\n' }}
                {%- endif %}
            {%- endfor %}
            {%- if add_generation_prompt %}
                {{- '<|assistant|>\\n' }}
            {%- endif %}
            """, "", "");
        List<ChatTurn> chat = List.of(new ChatTurn("system", "Be terse."), new ChatTurn("user", "first"),
            new ChatTurn("assistant", "<reason>thinking</reason>\n\nanswer one"), new ChatTurn("user", "second  "),
            new ChatTurn("user", "<result>tool out</result>"));

        // What Python's Jinja renders with transformers' options.
        assertThat(template.render(chat, true)).isEqualTo("<|system|>\nBe terse.<|end|>\n<|user|>\nfirst<|end|>\n"
            + "<|assistant|>\nanswer one<|end|>\n<|user|>\nsecond<|end|>\n<|mark|>\n<|user|>\n<result>tool out"
            + "</result><|end|>\n<|assistant|>\n");
    }

    @Test
    void tojsonWritesWhatPythonsJsonDumpsWrites() {
        JinjaChatTemplate template = new JinjaChatTemplate("""
            {%- set tool = {'name': 'get_weather', 'parameters': {'type': 'object', 'required': ['city'],
                'properties': {'city': {'type': 'string', 'description': 'Ville — "quoted"\\tand\\nmore'}}}} %}
            {{- 'Tools: ' + tool | tojson + '\\n' }}
            {{- tool | tojson(indent=2) }}
            """, "", "");

        String description = "\"Ville — \\\"quoted\\\"\\tand\\nmore\"";
        assertThat(template.render(List.of(), false)).isEqualTo("Tools: {\"name\": \"get_weather\", \"parameters\": "
            + "{\"type\": \"object\", \"required\": [\"city\"], \"properties\": {\"city\": {\"type\": \"string\", "
            + "\"description\": " + description + "}}}}\n{\n  \"name\": \"get_weather\",\n  \"parameters\": {\n"
            + "    \"type\": \"object\",\n    \"required\": [\n      \"city\"\n    ],\n    \"properties\": {\n"
            + "      \"city\": {\n        \"type\": \"string\",\n        \"description\": " + description + "\n"
            + "      }\n    }\n  }\n}");
    }

    @Test
    void aTemplateThatDatesItsSystemPromptWritesTodayAsTheEngineDoes() {
        JinjaChatTemplate template = new JinjaChatTemplate("""
            {{- bos_token }}
            {%- if not date_string is defined %}
                {%- if strftime_now is defined %}
                    {%- set date_string = strftime_now("%d %b %Y") %}
                {%- else %}
                    {%- set date_string = "01 Jan 2000" %}
                {%- endif %}
            {%- endif %}
            {{- 'Today: ' + date_string }}
            """, "<s>", "");
        DateTimeFormatter python = DateTimeFormatter.ofPattern("dd MMM yyyy", Locale.ENGLISH);

        String before = python.format(ZonedDateTime.now());
        String rendered = template.render(List.of(), false);
        String after = python.format(ZonedDateTime.now());

        assertThat(rendered).isIn("<s>Today: " + before, "<s>Today: " + after);
    }
}
