package dev.homing.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Each expected value is what Python 3 gives for the same call. */
class PythonStringsTest {

    @Test
    void splitKeepsEmptyFieldsOnASeparatorAndDropsThemOnWhitespace() {
        assertThat(call("a,,b,", "split", ",")).isEqualTo(List.of("a", "", "b", ""));
        assertThat(call("  a  b \n", "split")).isEqualTo(List.of("a", "b"));
        assertThat(call("a b c", "split", null, 1L)).isEqualTo(List.of("a", "b c"));
        assertThat(call("  a b  c  ", "split", null, 1L)).isEqualTo(List.of("a", "b  c  "));
        assertThat(call("a,b,c", "split", ",", 1L)).isEqualTo(List.of("a", "b,c"));
        assertThat(call("x</think>\n\nanswer", "split", "</think>")).isEqualTo(List.of("x", "\n\nanswer"));
    }

    @Test
    void stripsWhitespaceAsPythonCountsItOrTheCharactersGiven() {
        assertThat(call(" \u00a0x\u00a0 \n", "strip")).isEqualTo("x");
        assertThat(call("xxhixx", "strip", "x")).isEqualTo("hi");
        assertThat(call("\n\nanswer\n", "lstrip", "\n")).isEqualTo("answer\n");
        assertThat(call("  a  ", "rstrip")).isEqualTo("  a");
    }

    @Test
    void theOtherMethodsTemplatesCall() {
        assertThat(call("abc", "startswith", List.of("x", "a"))).isEqualTo(true);
        assertThat(call("<tool_response>x</tool_response>", "endswith", "</tool_response>")).isEqualTo(true);
        assertThat(call("they're bob", "title")).isEqualTo("They'Re Bob");
        assertThat(call("hello WORLD", "capitalize")).isEqualTo("Hello world");
        assertThat(call("ab", "upper")).isEqualTo("AB");
        assertThat(call("aXb", "replace", "X", "-")).isEqualTo("a-b");
        assertThat(call("abc", "find", "c")).isEqualTo(2L);
        assertThat(call("-", "join", List.of("a", "b"))).isEqualTo("a-b");
    }

    @Test
    void aMethodPythonsStringsLackIsLeftToJinjava() {
        assertThat(call("abc", "startsWith", "a")).isNotEqualTo(true);
        assertThat(call("abc", "split", ",", 1L, 2L)).isNotInstanceOf(List.class);
    }

    private static Object call(String s, String method, Object... args) {
        return PythonStrings.call(s, method, args);
    }
}
