package dev.homing.tokenizer;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * Transformers' {@code strftime_now(format)} for chat templates: the local time now, formatted by Python's
 * {@code strftime} directives (Llama 3.1 writes "Today Date: {@code strftime_now("%d %b %Y")}" into every system
 * prompt, so the gateway must write the date the engine writes). The C library's English names, as Python's default
 * locale gives them.
 */
final class PythonStrftime {

    /** Each directive's formatter, made once: a Llama 3.1 chat formats its date on every render. */
    private static final Map<Character, DateTimeFormatter> DIRECTIVES = directives();

    private PythonStrftime() {
    }

    static String format(String format, ZonedDateTime time) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 == format.length()) {
                out.append(c);
                continue;
            }
            char directive = format.charAt(++i);
            DateTimeFormatter formatter = DIRECTIVES.get(directive);
            if (directive == '%') {
                out.append('%');
            } else if (formatter == null) {
                out.append('%').append(directive);
            } else {
                formatter.formatTo(time, out);
            }
        }
        return out.toString();
    }

    private static Map<Character, DateTimeFormatter> directives() {
        return Map.ofEntries(english('d', "dd"), english('m', "MM"), english('Y', "yyyy"), english('y', "yy"),
                english('b', "MMM"), english('h', "MMM"), english('B', "MMMM"), english('a', "EEE"),
                english('A', "EEEE"), english('H', "HH"), english('I', "hh"), english('M', "mm"), english('S', "ss"),
                english('p', "a"), english('j', "DDD"));
    }

    private static Map.Entry<Character, DateTimeFormatter> english(char directive, String pattern) {
        return Map.entry(directive, DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH));
    }
}
