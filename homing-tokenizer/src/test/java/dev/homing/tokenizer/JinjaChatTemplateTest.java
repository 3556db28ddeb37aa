package dev.homing.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
}
