package dev.homing.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * How a setting's text becomes its value, and back. A flag's argument and a YAML scalar go through the same parser,
 * so the command line and the file accept exactly the same values. A list takes every occurrence of its flag (or a
 * YAML list), each split on commas.
 *
 * @param <T> the value's type
 */
public abstract sealed class ValueType<T> {

    public static final ValueType<String> TEXT = new Scalar<>("a text", text -> text);
    /** Text compared without case (header names): kept in lower case. */
    public static final ValueType<String> LOWER_CASE_TEXT = new Scalar<>("a text", text -> text,
            text -> text.toLowerCase(Locale.ROOT));
    public static final ValueType<Integer> INTEGER = new Scalar<>("an integer", text -> Integer.valueOf(text.strip()));
    public static final ValueType<Long> LONG = new Scalar<>("an integer", text -> Long.valueOf(text.strip()));
    public static final ValueType<Double> NUMBER = new Scalar<>("a number", text -> Double.valueOf(text.strip()));
    public static final ValueType<Path> PATH = new Scalar<>("a file path", Path::of);
    /** On or off: a flag without argument turns it on. */
    public static final ValueType<Boolean> SWITCH = new Scalar<>("true or false", ValueType::parseBoolean);

    private ValueType() {
    }

    /** A list of {@code element} values. */
    public static <E> ValueType<List<E>> listOf(ValueType<E> element) {
        return new ListOf<>((Scalar<E>) element);
    }

    /**
     * The value of these occurrences (the last one counts for a single value).
     *
     * @throws IllegalArgumentException with what is wrong, as a phrase to follow the flag ("must be an integer,
     *                                  got 'x'")
     */
    abstract T parse(List<String> occurrences);

    /** The value as its flag would take it; null for null. */
    abstract String format(T value);

    /** The value as settings hold it (lists unmodifiable, case-free text in lower case). */
    abstract T canonical(T value);

    boolean isList() {
        return this instanceof ListOf<?>;
    }

    boolean isSwitch() {
        return this == SWITCH;
    }

    private static Boolean parseBoolean(String text) {
        String word = text.strip().toLowerCase(Locale.ROOT);
        if (!word.equals("true") && !word.equals("false")) {
            throw new IllegalArgumentException();
        }
        return Boolean.valueOf(word);
    }

    /** One value. */
    private static final class Scalar<T> extends ValueType<T> {
        private final String noun;
        private final Function<String, T> parser;
        private final UnaryOperator<T> canonical;

        Scalar(String noun, Function<String, T> parser) {
            this(noun, parser, UnaryOperator.identity());
        }

        Scalar(String noun, Function<String, T> parser, UnaryOperator<T> canonical) {
            this.noun = noun;
            this.parser = parser;
            this.canonical = canonical;
        }

        @Override
        T parse(List<String> occurrences) {
            return parseOne(occurrences.getLast());
        }

        T parseOne(String text) {
            try {
                return canonical.apply(parser.apply(text));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("must be " + noun + ", got '" + text + "'");
            }
        }

        @Override
        String format(T value) {
            return value == null ? null : String.valueOf(value);
        }

        @Override
        T canonical(T value) {
            return value == null ? null : canonical.apply(value);
        }
    }

    /** Values of one kind, in order. */
    private static final class ListOf<E> extends ValueType<List<E>> {
        private final Scalar<E> element;

        ListOf(Scalar<E> element) {
            this.element = element;
        }

        @Override
        List<E> parse(List<String> occurrences) {
            List<E> values = new ArrayList<>();
            for (String occurrence : occurrences) {
                for (String part : occurrence.split(",")) {
                    if (!part.isBlank()) {
                        values.add(element.parseOne(part.strip()));
                    }
                }
            }
            return List.copyOf(values);
        }

        @Override
        String format(List<E> value) {
            return value == null ? null : value.stream().map(element::format).collect(Collectors.joining(","));
        }

        @Override
        List<E> canonical(List<E> value) {
            return value == null ? null : value.stream().map(element::canonical).toList();
        }
    }
}
