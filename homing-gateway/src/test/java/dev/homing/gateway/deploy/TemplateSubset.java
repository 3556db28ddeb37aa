package dev.homing.gateway.deploy;

import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLWriteFeature;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of Helm's template language (Go's text/template with a few of Sprig's functions) that the chart of
 * deploy/helm uses, and nothing more: output actions, {@code define}/{@code include}, {@code if}/{@code else if}/
 * {@code else}/{@code end}, {@code range} over a list, pipelines, fields from {@code .} and {@code $}, comments,
 * {@code {{-}} and {@code -}}} trimming, and the functions quote, default, or, not, toYaml, nindent and indent,
 * with {@code .Files.Get}. Anything else is refused by name, so a template that strays from the subset fails its
 * test instead of rendering something Helm would not.
 */
final class TemplateSubset {

    /** An action, or a comment (which may hold braces of its own); with its trimming markers. */
    private static final Pattern ACTION = Pattern.compile("\\{\\{(-\\s)?(/\\*.*?\\*/|.*?)(\\s-)?}}",
            Pattern.DOTALL);
    private static final Pattern TOKEN = Pattern.compile("\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|\\||\\(|\\)|[^\\s|()]+)");
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(YAMLWriteFeature.WRITE_DOC_START_MARKER)
            .enable(YAMLWriteFeature.MINIMIZE_QUOTES, YAMLWriteFeature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .build();

    private final Map<String, List<Node>> defined = new HashMap<>();
    private final UnaryOperator<String> files;

    /** @param files the chart's files by path, for {@code .Files.Get} */
    TemplateSubset(UnaryOperator<String> files) {
        this.files = files;
    }

    /** Parses a template, keeping its {@code define}s for {@code include}; returns what it renders itself. */
    List<Node> parse(String name, String text) {
        Parser parser = new Parser(name, segments(text));
        List<Node> nodes = parser.nodes();
        if (parser.end != null) {
            throw new IllegalArgumentException(name + ": '" + parser.end + "' without its opening action");
        }
        return nodes;
    }

    String render(List<Node> nodes, Map<String, Object> root) {
        StringBuilder out = new StringBuilder();
        for (Node node : nodes) {
            node.render(new Scope(root, root), out);
        }
        return out.toString();
    }

    // --- Text and actions, with the trimming markers applied ----------------------------------------------------

    private record Segment(String text, String action) {
    }

    private static List<Segment> segments(String text) {
        List<Segment> segments = new ArrayList<>();
        Matcher matcher = ACTION.matcher(text);
        int at = 0;
        boolean trimNext = false;
        while (matcher.find()) {
            String before = text.substring(at, matcher.start());
            if (trimNext) {
                before = before.stripLeading();
            }
            if (matcher.group(1) != null) {
                before = before.stripTrailing();
            }
            segments.add(new Segment(before, null));
            String action = matcher.group(2).strip();
            if (!(action.startsWith("/*") && action.endsWith("*/"))) {
                segments.add(new Segment(null, action));
            }
            trimNext = matcher.group(3) != null;
            at = matcher.end();
        }
        String rest = text.substring(at);
        segments.add(new Segment(trimNext ? rest.stripLeading() : rest, null));
        return segments;
    }

    // --- Nodes --------------------------------------------------------------------------------------------------

    /** The dot and the root ({@code $}) an action is evaluated with. */
    private record Scope(Object dot, Map<String, Object> root) {
    }

    sealed interface Node permits Text, Output, If, Range {
        void render(Scope scope, StringBuilder out);
    }

    private record Text(String text) implements Node {
        public void render(Scope scope, StringBuilder out) {
            out.append(text);
        }
    }

    private final class Output implements Node {
        private final Pipeline pipeline;

        Output(Pipeline pipeline) {
            this.pipeline = pipeline;
        }

        public void render(Scope scope, StringBuilder out) {
            out.append(print(pipeline.evaluate(scope)));
        }
    }

    private record If(Pipeline condition, List<Node> then, List<Node> otherwise) implements Node {
        public void render(Scope scope, StringBuilder out) {
            for (Node node : truthy(condition.evaluate(scope)) ? then : otherwise) {
                node.render(scope, out);
            }
        }
    }

    private record Range(Pipeline items, List<Node> body) implements Node {
        public void render(Scope scope, StringBuilder out) {
            Object items = this.items.evaluate(scope);
            if (items == null) {
                return;
            }
            if (!(items instanceof List<?> list)) {
                throw new IllegalArgumentException("range over " + items + ": the subset ranges over lists only");
            }
            for (Object item : list) {
                for (Node node : body) {
                    node.render(new Scope(item, scope.root()), out);
                }
            }
        }
    }

    // --- Parsing ------------------------------------------------------------------------------------------------

    private final class Parser {
        private final String name;
        private final List<Segment> segments;
        private int next;
        /** The action that ended the last list: end, else, else if ..., or null at the end of the text. */
        private String end;

        Parser(String name, List<Segment> segments) {
            this.name = name;
            this.segments = segments;
        }

        /** Nodes up to the next end, else or else if (left in {@link #end}), or the end of the text. */
        List<Node> nodes() {
            List<Node> nodes = new ArrayList<>();
            while (next < segments.size()) {
                Segment segment = segments.get(next++);
                String action = segment.action();
                if (action == null) {
                    nodes.add(new Text(segment.text()));
                } else if (action.equals("end") || action.equals("else") || action.startsWith("else if ")) {
                    end = action;
                    return nodes;
                } else if (action.startsWith("if ")) {
                    nodes.add(ifFrom(action.substring(3)));
                } else if (action.startsWith("range ")) {
                    Pipeline items = pipeline(action.substring(6));
                    nodes.add(new Range(items, closed(nodes(), "range")));
                } else if (action.startsWith("define ")) {
                    String template = (String) literal(action.substring(7).strip());
                    defined.put(template, closed(nodes(), "define"));
                } else if (action.matches("(with|template|block|break|continue)\\b.*")) {
                    throw unsupported(action);
                } else {
                    nodes.add(new Output(pipeline(action)));
                }
            }
            end = null;
            return nodes;
        }

        private If ifFrom(String condition) {
            Pipeline test = pipeline(condition);
            List<Node> then = nodes();
            if (end == null) {
                throw new IllegalArgumentException(name + ": 'if " + condition + "' has no end");
            }
            if (end.equals("else")) {
                return new If(test, then, closed(nodes(), "else"));
            }
            if (end.startsWith("else if ")) {
                return new If(test, then, List.of(ifFrom(end.substring(8))));
            }
            return new If(test, then, List.of());
        }

        private List<Node> closed(List<Node> body, String what) {
            if (!"end".equals(end)) {
                throw new IllegalArgumentException(name + ": '" + what + "' closed by " + end);
            }
            return body;
        }

        private Pipeline pipeline(String text) {
            List<String> tokens = new ArrayList<>();
            Matcher matcher = TOKEN.matcher(text);
            int at = 0;
            while (at < text.length() && matcher.find(at) && matcher.start() == at) {
                tokens.add(matcher.group(1));
                at = matcher.end();
            }
            if (!text.substring(at).isBlank()) {
                throw new IllegalArgumentException(name + ": cannot read '" + text + "'");
            }
            int[] position = {0};
            Pipeline pipeline = pipeline(tokens, position);
            if (position[0] != tokens.size()) {
                throw new IllegalArgumentException(name + ": unbalanced parentheses in '" + text + "'");
            }
            return pipeline;
        }

        private Pipeline pipeline(List<String> tokens, int[] position) {
            List<List<Operand>> commands = new ArrayList<>();
            List<Operand> command = new ArrayList<>();
            while (position[0] < tokens.size()) {
                String token = tokens.get(position[0]++);
                switch (token) {
                    case "|" -> {
                        commands.add(command);
                        command = new ArrayList<>();
                    }
                    case "(" -> {
                        Pipeline inner = pipeline(tokens, position);
                        command.add(scope -> inner.evaluate(scope));
                    }
                    case ")" -> {
                        commands.add(command);
                        return new Pipeline(commands);
                    }
                    default -> command.add(operand(token));
                }
            }
            commands.add(command);
            return new Pipeline(commands);
        }

        private Operand operand(String token) {
            if (token.startsWith("\"") || token.matches("-?\\d+")) {
                Object value = literal(token);
                return scope -> value;
            }
            if (token.equals(".Files.Get")) {
                return new Function(token);
            }
            if (token.equals(".") || token.equals("$")) {
                return token.equals(".") ? Scope::dot : Scope::root;
            }
            if (token.startsWith(".") || token.startsWith("$.")) {
                String[] path = token.substring(token.indexOf('.') + 1).split("\\.");
                boolean fromRoot = token.startsWith("$");
                return scope -> field(fromRoot ? scope.root() : scope.dot(), path, token);
            }
            return new Function(token);
        }

        private IllegalArgumentException unsupported(String action) {
            return new IllegalArgumentException(name + ": '" + action + "' is outside the chart's template subset");
        }
    }

    private static Object literal(String token) {
        if (token.startsWith("\"")) {
            return token.substring(1, token.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
        }
        return Integer.parseInt(token);
    }

    private static Object field(Object from, String[] path, String token) {
        Object value = from;
        for (String key : path) {
            if (!(value instanceof Map<?, ?> map)) {
                throw new IllegalArgumentException("nil pointer evaluating " + token + " at ." + key);
            }
            value = map.get(key);
        }
        return value;
    }

    // --- Evaluation ---------------------------------------------------------------------------------------------

    private interface Operand {
        Object evaluate(Scope scope);
    }

    /** A function's name as the first word of a command. */
    private record Function(String name) implements Operand {
        public Object evaluate(Scope scope) {
            throw new IllegalArgumentException("'" + name + "' is a function, not a value");
        }
    }

    /** Commands joined by |: each one's value is the last argument of the next. */
    private final class Pipeline {
        private final List<List<Operand>> commands;

        Pipeline(List<List<Operand>> commands) {
            this.commands = commands;
        }

        Object evaluate(Scope scope) {
            Object piped = null;
            boolean first = true;
            for (List<Operand> command : commands) {
                piped = command(command, scope, piped, !first);
                first = false;
            }
            return piped;
        }

        private Object command(List<Operand> command, Scope scope, Object piped, boolean hasPiped) {
            if (command.isEmpty()) {
                throw new IllegalArgumentException("an empty command");
            }
            List<Object> args = new ArrayList<>();
            for (Operand operand : command.subList(1, command.size())) {
                args.add(operand.evaluate(scope));
            }
            if (hasPiped) {
                args.add(piped);
            }
            if (command.getFirst() instanceof Function function) {
                return call(function.name(), args, scope);
            }
            if (command.size() == 1 && !hasPiped) {
                return command.getFirst().evaluate(scope);
            }
            throw new IllegalArgumentException("arguments given to a value that is not a function");
        }
    }

    private Object call(String function, List<Object> args, Scope scope) {
        return switch (function) {
            case "include" -> {
                List<Node> body = defined.get((String) args.getFirst());
                if (body == null) {
                    throw new IllegalArgumentException("no template named " + args.getFirst());
                }
                StringBuilder out = new StringBuilder();
                body.forEach(node -> node.render(new Scope(args.get(1), scope.root()), out));
                yield out.toString();
            }
            case "quote" -> String.join(" ", args.stream().filter(a -> a != null).map(a -> '"' + print(a)
                    .replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"').toList());
            case "default" -> truthy(args.get(1)) ? args.get(1) : args.getFirst();
            case "or" -> args.stream().filter(TemplateSubset::truthy).findFirst().orElse(args.getLast());
            case "not" -> !truthy(args.getFirst());
            case "toYaml" -> YAML.writeValueAsString(args.getFirst()).stripTrailing();
            case "indent" -> indent((Integer) args.getFirst(), print(args.get(1)));
            case "nindent" -> "\n" + indent((Integer) args.getFirst(), print(args.get(1)));
            case ".Files.Get" -> files.apply((String) args.getFirst());
            default -> throw new IllegalArgumentException("'" + function + "' is outside the chart's template subset");
        };
    }

    private static String indent(int spaces, String text) {
        String pad = " ".repeat(spaces);
        return pad + text.replace("\n", "\n" + pad);
    }

    /** Go's truth: false, 0, nil and empty strings, lists and maps are false. */
    private static boolean truthy(Object value) {
        return switch (value) {
            case null -> false;
            case Boolean b -> b;
            case Number n -> n.doubleValue() != 0;
            case String s -> !s.isEmpty();
            case Collection<?> c -> !c.isEmpty();
            case Map<?, ?> m -> !m.isEmpty();
            default -> true;
        };
    }

    private static String print(Object value) {
        return switch (value) {
            case null -> "";
            case String s -> s;
            case Boolean b -> b.toString();
            case Double d when d == Math.rint(d) -> Long.toString(d.longValue());
            case Number n -> n.toString();
            default -> throw new IllegalArgumentException("printing " + value + ": pipe it through toYaml");
        };
    }
}
