package dev.homing.config;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What a setting's value must be, as a phrase that completes its flag in an error message: {@code --port} "must be
 * 0..65535, got 70000". Numeric checks compare as {@code double} and refuse NaN, which fails every comparison.
 *
 * @param <T> the value's type
 */
@FunctionalInterface
public interface Check<T> {

    /** The problem with a (non-null) value, or null when it is fine. */
    String problem(T value);

    /** A check that {@code ok} holds, else "{@code requirement}, got value". */
    static <T> Check<T> that(Predicate<T> ok, String requirement) {
        return value -> ok.test(value) ? null
                : requirement + ", got " + (value instanceof String text ? "'" + text + "'" : value);
    }

    static <N extends Number> Check<N> atLeast(double min) {
        return that(n -> n.doubleValue() >= min, "must be >= " + number(min));
    }

    static <N extends Number> Check<N> above(double min) {
        return that(n -> n.doubleValue() > min, "must be > " + number(min));
    }

    /** Engine sizes: a count of at least one. */
    static <N extends Number> Check<N> positive() {
        return that(n -> n.doubleValue() > 0, "must be positive");
    }

    static <N extends Number> Check<N> between(double min, double max) {
        return that(n -> n.doubleValue() >= min && n.doubleValue() <= max,
                "must be between " + number(min) + " and " + number(max));
    }

    /** A port, or one of the listed special values below 0. */
    static Check<Integer> port(int lowest) {
        return that(port -> port >= lowest && port <= 65_535, "must be " + lowest + "..65535");
    }

    /** One of {@code names}, case as given by {@code normalize}. */
    static Check<String> oneOf(Collection<String> names, Function<String, String> normalize, String aside) {
        return value -> names.contains(normalize.apply(value)) ? null
                : "must be one of " + String.join(", ", names) + aside + ", got '" + value + "'";
    }

    static Check<String> oneOf(Collection<String> names) {
        return oneOf(names, Function.identity(), "");
    }

    /** Each element passes {@code element}; its problems are reported after the flag's name and a colon. */
    static <E> Check<List<E>> each(Function<E, String> element) {
        return values -> {
            for (E value : values) {
                String problem = element.apply(value);
                if (problem != null) {
                    return ": " + problem;
                }
            }
            return null;
        };
    }

    static <E> Check<List<E>> notEmpty() {
        return values -> values.isEmpty() ? "must not be empty" : null;
    }

    static Check<List<Double>> strictlyIncreasing() {
        return values -> {
            for (int i = 1; i < values.size(); i++) {
                if (!(values.get(i) > values.get(i - 1))) {
                    return "must be strictly increasing";
                }
            }
            return null;
        };
    }

    static Check<String> notBlank() {
        return value -> value.isBlank() ? "must not be blank" : null;
    }

    /** This check, then {@code next} if this one passed. */
    default Check<T> and(Check<? super T> next) {
        return value -> {
            String problem = problem(value);
            return problem != null ? problem : next.problem(value);
        };
    }

    /** A bound as people write it: 1, not 1.0. */
    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%s", value);
    }
}
