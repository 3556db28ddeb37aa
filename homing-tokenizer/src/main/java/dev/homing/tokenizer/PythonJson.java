package dev.homing.tokenizer;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code tojson} filter as transformers defines it for chat templates: Python's
 * {@code json.dumps(value, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)}, to the
 * character. Jinjava's own writes compact JSON ({@code {"a":1}} where Python writes {@code {"a": 1}}), and a
 * template that prints its tools with it opens every prompt with text the engine does not see.
 */
final class PythonJson implements Filter {

    @Override
    public String getName() {
        return "tojson";
    }

    @Override
    public Object filter(Object value, JinjavaInterpreter interpreter, String... args) {
        return filter(value, interpreter, args, Map.of());
    }

    @Override
    public Object filter(Object value, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
        Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 0 ? args[0] : null;
        List<?> separators = kwargs.get("separators") instanceof List<?> given && given.size() == 2 ? given : null;
        Options options = new Options(indent == null ? null : indentText(indent),
                separators != null ? String.valueOf(separators.get(0)) : indent == null ? ", " : ",",
                separators != null ? String.valueOf(separators.get(1)) : ": ",
                truthy(kwargs.get("sort_keys")), truthy(kwargs.get("ensure_ascii")));
        StringBuilder out = new StringBuilder();
        write(value, options, 0, out);
        return out.toString();
    }

    /** Python's indent: a number of spaces, or a string written as it is. */
    private static String indentText(Object indent) {
        return indent instanceof Number number ? " ".repeat(Math.max(0, number.intValue())) : indent.toString();
    }

    private static boolean truthy(Object value) {
        return value instanceof Boolean b ? b : value != null && !"false".equalsIgnoreCase(value.toString());
    }

    private record Options(String indent, String itemSeparator, String keySeparator, boolean sortKeys,
                           boolean ensureAscii) {
    }

    private static void write(Object value, Options options, int depth, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean b) {
            out.append(b ? "true" : "false");
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte || value instanceof java.math.BigInteger) {
            out.append(value);
        } else if (value instanceof Number number) {
            writeFloat(number.doubleValue(), out);
        } else if (value instanceof Map<?, ?> map) {
            Map<?, ?> entries = options.sortKeys() ? new TreeMap<>(stringKeys(map)) : map;
            writeContainer('{', '}', entries.entrySet().iterator(), entries.isEmpty(), options, depth, out);
        } else if (value instanceof Iterable<?> items) {
            writeContainer('[', ']', items.iterator(), !items.iterator().hasNext(), options, depth, out);
        } else if (value.getClass().isArray()) {
            List<Object> items = new ArrayList<>();
            for (int i = 0; i < Array.getLength(value); i++) {
                items.add(Array.get(value, i));
            }
            writeContainer('[', ']', items.iterator(), items.isEmpty(), options, depth, out);
        } else {
            writeString(value.toString(), options.ensureAscii(), out);
        }
    }

    private static Map<String, Object> stringKeys(Map<?, ?> map) {
        Map<String, Object> keyed = new TreeMap<>();
        map.forEach((key, item) -> keyed.put(String.valueOf(key), item));
        return keyed;
    }

    private static void writeContainer(char open, char close, Iterator<?> items, boolean empty, Options options,
                                       int depth, StringBuilder out) {
        out.append(open);
        if (empty) {
            out.append(close);
            return;
        }
        boolean first = true;
        while (items.hasNext()) {
            Object item = items.next();
            if (!first) {
                out.append(options.itemSeparator());
            }
            first = false;
            newline(options, depth + 1, out);
            if (item instanceof Map.Entry<?, ?> entry) {
                writeString(String.valueOf(entry.getKey()), options.ensureAscii(), out);
                out.append(options.keySeparator());
                write(entry.getValue(), options, depth + 1, out);
            } else {
                write(item, options, depth + 1, out);
            }
        }
        newline(options, depth, out);
        out.append(close);
    }

    private static void newline(Options options, int depth, StringBuilder out) {
        if (options.indent() != null) {
            out.append('\n').append(options.indent().repeat(depth));
        }
    }

    /** A float as Python's {@code repr} writes the common cases: {@code 1.0}, {@code 0.5}, {@code 1e+20}. */
    private static void writeFloat(double value, StringBuilder out) {
        if (Double.isNaN(value)) {
            out.append("NaN");
        } else if (Double.isInfinite(value)) {
            out.append(value > 0 ? "Infinity" : "-Infinity");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e16) {
            out.append((long) value).append(".0");
        } else {
            String java = Double.toString(value);
            int e = java.indexOf('E');
            if (e < 0) {
                out.append(java);
            } else {
                String mantissa = java.substring(0, e);
                out.append(mantissa.endsWith(".0") ? mantissa.substring(0, mantissa.length() - 2) : mantissa)
                        .append('e').append(java.charAt(e + 1) == '-' ? "-" : "+");
                String exponent = java.substring(java.charAt(e + 1) == '-' ? e + 2 : e + 1);
                out.append(exponent.length() < 2 ? "0" + exponent : exponent);
            }
        }
    }

    /** A JSON string as Python writes it: quotes, backslash and control characters escaped, the rest as it is. */
    private static void writeString(String s, boolean ensureAscii, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || (ensureAscii && c > 0x7f)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
