package dev.homing.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One setting, declared once in {@link Settings}: its name (the flag is {@code --name}, the YAML key the name in
 * kebab or snake case), the type of its value, its default and why, its help, what a value must be, where it
 * applies and, for the gateway, how it compares with the reference's flag. The picocli options, the YAML keys,
 * {@code --help} and docs/COMPATIBILITY.md are all made from these.
 *
 * <p>Immutable. Equality is identity: two settings may share a name in different scopes (the gateway's
 * {@code --port} and the simulated engine's).
 *
 * @param <T> the value's type
 */
public final class Setting<T> {

    private final int index;
    private final String name;
    private final List<String> aliases;
    private final ValueType<T> type;
    private final T defaultValue;
    private final String shownDefault;
    private final String why;
    private final String description;
    private final String paramLabel;
    private final String arity;
    private final Check<? super T> check;
    private final Group group;
    private final Set<Scope> scopes;
    private final Compatibility compatibility;
    private final boolean fileKey;

    private Setting(Builder<T> declared, int index) {
        this.index = index;
        this.name = declared.name;
        this.aliases = List.copyOf(declared.aliases);
        this.type = declared.type;
        this.defaultValue = declared.type.canonical(declared.defaultValue);
        this.shownDefault = declared.shownDefault;
        this.why = Objects.requireNonNull(declared.why, () -> name + ": why is the default what it is?");
        this.description = Objects.requireNonNull(declared.description, () -> name + ": no help text");
        this.paramLabel = declared.paramLabel;
        this.arity = declared.arity;
        this.check = declared.check;
        this.group = Objects.requireNonNull(declared.group, () -> name + ": no group");
        this.scopes = Collections.unmodifiableSet(EnumSet.copyOf(declared.scopes));
        this.compatibility = declared.compatibility;
        this.fileKey = declared.fileKey;
        if (scopes.contains(Scope.GATEWAY) != (compatibility != null)) {
            throw new IllegalStateException(name + ": a gateway setting, and only one, has a compatibility row");
        }
    }

    /** Starts the declaration of a setting; see {@link Settings}. */
    static <T> Builder<T> of(String name, ValueType<T> type, T defaultValue) {
        return new Builder<>(name, type, defaultValue);
    }

    static Builder<Boolean> off(String name) {
        return of(name, ValueType.SWITCH, false);
    }

    static Builder<Path> file(String name) {
        return of(name, ValueType.PATH, null);
    }

    /** The position in the table, which {@link Config} indexes its values by. */
    int index() {
        return index;
    }

    /** Kebab-case, as the flag without its dashes. */
    public String name() {
        return name;
    }

    /** {@code --name}: the flag errors and help name it by. */
    public String flag() {
        return "--" + name;
    }

    /** Every flag that sets it: {@link #flag()}, then its aliases. */
    public List<String> flags() {
        return Stream.concat(Stream.of(name), aliases.stream()).map(n -> "--" + n).toList();
    }

    public ValueType<T> type() {
        return type;
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** The default as help and docs/COMPATIBILITY.md show it: "none" when there is none. */
    public String defaultText() {
        if (shownDefault != null) {
            return shownDefault;
        }
        boolean none = defaultValue == null || defaultValue instanceof List<?> list && list.isEmpty();
        return none ? "none" : type.format(defaultValue);
    }

    /** Why the default is what it is, in a line. */
    public String why() {
        return why;
    }

    /** The help text. */
    public String description() {
        return description;
    }

    /** What {@code --help} shows for the argument; null for a switch. */
    public String paramLabel() {
        if (type.isSwitch()) {
            return null;
        }
        return paramLabel != null ? paramLabel : "<" + camelCase(name) + ">";
    }

    /** How many arguments one occurrence of the flag takes, as picocli writes it. */
    String arity() {
        return arity;
    }

    public Group group() {
        return group;
    }

    public Set<Scope> scopes() {
        return scopes;
    }

    public boolean appliesTo(Scope scope) {
        return scopes.contains(scope);
    }

    /** The compatibility row (gateway settings only, else null). */
    public Compatibility compatibility() {
        return compatibility;
    }

    /** A flag of a feature Homing has not built, or does another way: refused unless given its default. */
    public boolean notYet() {
        return compatibility != null && (compatibility.status() == Compatibility.Status.NOT_YET
                || compatibility.status() == Compatibility.Status.REPLACED);
    }

    /** On true or false with no argument. */
    boolean isSwitch() {
        return type.isSwitch();
    }

    /** Whether a {@code --config} file may set it ({@code --config} itself may not). */
    public boolean fileKey() {
        return fileKey;
    }

    /** The problem with {@code value}, naming the flag, or null when it is fine (no value is always fine). */
    public String problem(T value) {
        if (value == null || check == null) {
            return null;
        }
        String problem = check.problem(value);
        if (problem == null) {
            return null;
        }
        return flag() + (problem.startsWith(":") ? problem : " " + problem);
    }

    /**
     * The value of these occurrences of the flag (or of its YAML key).
     *
     * @throws IllegalArgumentException naming the flag
     */
    T parse(List<String> occurrences) {
        try {
            return type.parse(occurrences);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag() + " " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return flag() + " " + scopes;
    }

    private static String camelCase(String kebab) {
        StringBuilder out = new StringBuilder();
        for (String word : kebab.split("-")) {
            out.append(out.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return out.toString();
    }

    /** A setting being declared. Not thread-safe; {@link Settings} builds each once, in its static initializer. */
    static final class Builder<T> {
        private final String name;
        private final ValueType<T> type;
        private final T defaultValue;
        private final List<String> aliases = new ArrayList<>();
        private final Set<Scope> scopes = EnumSet.noneOf(Scope.class);
        private String shownDefault;
        private String why;
        private String description;
        private String paramLabel;
        private String arity;
        private Check<? super T> check;
        private Group group;
        private Compatibility compatibility;
        private boolean fileKey = true;

        private Builder(String name, ValueType<T> type, T defaultValue) {
            this.name = name;
            this.type = type;
            this.defaultValue = defaultValue;
        }

        /** The help text, and why the default is what it is. */
        Builder<T> help(String text, String whyThisDefault) {
            description = text;
            why = whyThisDefault;
            return this;
        }

        Builder<T> alias(String otherName) {
            aliases.add(otherName);
            return this;
        }

        /** The argument's name in help, instead of the camel-case name. */
        Builder<T> label(String label) {
            paramLabel = label;
            return this;
        }

        /** Arguments one occurrence takes, for a list (default: one or more). */
        Builder<T> arity(String range) {
            arity = range;
            return this;
        }

        /** The default as help shows it, where the value itself would be unreadable. */
        Builder<T> shown(String text) {
            shownDefault = text;
            return this;
        }

        Builder<T> check(Check<? super T> valueCheck) {
            check = valueCheck;
            return this;
        }

        /** Where it applies, in which help group. */
        Builder<T> in(Group helpGroup, Scope first, Scope... more) {
            group = helpGroup;
            scopes.add(first);
            scopes.addAll(List.of(more));
            return this;
        }

        /** A gateway setting in {@code helpGroup}, with its row in docs/COMPATIBILITY.md. */
        Builder<T> gateway(Group helpGroup, Compatibility row) {
            compatibility = row;
            return in(helpGroup, Scope.GATEWAY);
        }

        /** Read in {@code scope} too, under the same name, group and default. */
        Builder<T> alsoIn(Scope scope) {
            scopes.add(scope);
            return this;
        }

        /** Given on the command line only: no YAML key. */
        Builder<T> commandLineOnly() {
            fileKey = false;
            return this;
        }

        Setting<T> build(int index) {
            return new Setting<>(this, index);
        }
    }
}
