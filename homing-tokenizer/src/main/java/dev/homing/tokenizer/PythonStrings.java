package dev.homing.tokenizer;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's {@code str} methods on a template's strings, which Jinjava, resolving methods on Java's {@code String},
 * does not have: chat templates call {@code content.startswith('<tool_response>')},
 * {@code content.split('</think>')[-1].lstrip('\n')} and the like, and a template that cannot call them renders
 * nothing. Each follows Python's semantics (whitespace as {@code str.isspace}, {@code split} keeping empty fields);
 * any other call goes on to Jinjava's own resolution.
 */
final class PythonStrings extends ELResolver {

    /** What {@link #call} returns for a method or arguments it does not answer. */
    private static final Object NOT_PYTHON = new Object();

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (!(base instanceof String text) || !(method instanceof String name)) {
            return null;
        }
        Object result = call(text, name, params == null ? new Object[0] : params);
        if (result == NOT_PYTHON) {
            return null;
        }
        context.setPropertyResolved(true);
        return result;
    }

    static Object call(String s, String name, Object[] args) {
        int n = args.length;
        return switch (name) {
            case "startswith" -> n == 1 ? affixed(s, args[0], true) : NOT_PYTHON;
            case "endswith" -> n == 1 ? affixed(s, args[0], false) : NOT_PYTHON;
            case "strip" -> n <= 1 ? strip(s, n == 0 ? null : args[0], true, true) : NOT_PYTHON;
            case "lstrip" -> n <= 1 ? strip(s, n == 0 ? null : args[0], true, false) : NOT_PYTHON;
            case "rstrip" -> n <= 1 ? strip(s, n == 0 ? null : args[0], false, true) : NOT_PYTHON;
            case "split" -> n <= 2 ? split(s, n == 0 ? null : args[0], n < 2 ? -1 : number(args[1])) : NOT_PYTHON;
            case "upper" -> n == 0 ? s.toUpperCase(Locale.ROOT) : NOT_PYTHON;
            case "lower" -> n == 0 ? s.toLowerCase(Locale.ROOT) : NOT_PYTHON;
            case "title" -> n == 0 ? title(s) : NOT_PYTHON;
            case "capitalize" -> n == 0 ? capitalize(s) : NOT_PYTHON;
            case "replace" -> n == 2 && args[0] != null && args[1] != null
                    ? s.replace(args[0].toString(), args[1].toString()) : NOT_PYTHON;
            case "find" -> n == 1 && args[0] != null ? (long) s.indexOf(args[0].toString()) : NOT_PYTHON;
            case "join" -> n == 1 && args[0] instanceof Iterable<?> items ? join(s, items) : NOT_PYTHON;
            default -> NOT_PYTHON;
        };
    }

    /** {@code startswith}/{@code endswith}: the argument a string or a tuple (a list) of strings. */
    private static Object affixed(String s, Object affix, boolean start) {
        if (affix instanceof Iterable<?> any) {
            for (Object one : any) {
                if (one != null && (start ? s.startsWith(one.toString()) : s.endsWith(one.toString()))) {
                    return true;
                }
            }
            return false;
        }
        if (affix == null) {
            return NOT_PYTHON;
        }
        return start ? s.startsWith(affix.toString()) : s.endsWith(affix.toString());
    }

    /** Strips whitespace ({@code chars} null) or any of {@code chars} from either end. */
    private static String strip(String s, Object chars, boolean left, boolean right) {
        String set = chars == null ? null : chars.toString();
        int from = 0;
        int to = s.length();
        while (left && from < to && stripped(s.charAt(from), set)) {
            from++;
        }
        while (right && to > from && stripped(s.charAt(to - 1), set)) {
            to--;
        }
        return s.substring(from, to);
    }

    private static boolean stripped(char c, String set) {
        return set == null ? isSpace(c) : set.indexOf(c) >= 0;
    }

    /** Python's {@code str.isspace} for one character. */
    private static boolean isSpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
    }

    /**
     * {@code split(sep, maxsplit)}: on {@code sep} keeping empty fields, or (sep null) on runs of whitespace,
     * dropping the empty ends; at most {@code maxsplit} splits when it is not negative.
     */
    private static List<String> split(String s, Object sep, long maxSplit) {
        List<String> parts = new ArrayList<>();
        if (sep == null) {
            int i = 0;
            while (true) {
                while (i < s.length() && isSpace(s.charAt(i))) {
                    i++;
                }
                if (i == s.length()) {
                    return parts;
                }
                if (maxSplit >= 0 && parts.size() == maxSplit) {
                    parts.add(s.substring(i)); // Python keeps the rest as it is, trailing space and all
                    return parts;
                }
                int end = i;
                while (end < s.length() && !isSpace(s.charAt(end))) {
                    end++;
                }
                parts.add(s.substring(i, end));
                i = end;
            }
        }
        String separator = sep.toString();
        if (separator.isEmpty()) {
            throw new IllegalArgumentException("empty separator");
        }
        int from = 0;
        for (int at = s.indexOf(separator); at >= 0 && (maxSplit < 0 || parts.size() < maxSplit);
                at = s.indexOf(separator, from)) {
            parts.add(s.substring(from, at));
            from = at + separator.length();
        }
        parts.add(s.substring(from));
        return parts;
    }

    private static long number(Object value) {
        return value instanceof Number number ? number.longValue() : Long.parseLong(value.toString());
    }

    /** Each run of letters begins upper case and goes on lower case, as Python's {@code str.title}. */
    private static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean previousCased = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(previousCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
            previousCased = Character.isLetter(c);
        }
        return out.toString();
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1).toLowerCase(Locale.ROOT);
    }

    private static String join(String separator, Iterable<?> items) {
        StringBuilder out = new StringBuilder();
        boolean first = true;
        for (Object item : items) {
            if (!first) {
                out.append(separator);
            }
            out.append(item);
            first = false;
        }
        return out.toString();
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
    }
}
