package dev.homing.tokenizer;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Transformers' {@code strftime_now(format)} for chat templates: the local time now, formatted by Python's
 * {@code strftime} directives (Llama 3.1 writes "Today Date: {@code strftime_now("%d %b %Y")}" into every system
 * prompt, so the gateway must write the date the engine writes). The C library's English names, as Python's default
 * locale gives them.
 */
final class PythonStrftime {

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
            String pattern = switch (directive) {
                case 'd' -> "dd";
                case 'm' -> "MM";
                case 'Y' -> "yyyy";
                case 'y' -> "yy";
                case 'b', 'h' -> "MMM";
                case 'B' -> "MMMM";
                case 'a' -> "EEE";
                case 'A' -> "EEEE";
                case 'H' -> "HH";
                case 'I' -> "hh";
                case 'M' -> "mm";
                case 'S' -> "ss";
                case 'p' -> "a";
                case 'j' -> "DDD";
                default -> null;
            };
            if (directive == '%') {
                out.append('%');
            } else if (pattern == null) {
                out.append('%').append(directive);
            } else {
                out.append(DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH).format(time));
            }
        }
        return out.toString();
    }
}
