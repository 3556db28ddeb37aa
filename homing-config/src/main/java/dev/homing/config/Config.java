package dev.homing.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The values of one scope's settings: the table's defaults ({@link #defaults}) changed by a command line, a YAML
 * file or {@link #with} (tests and programmatic starts). Immutable; values are held in the table's order.
 *
 * <p>Holding a value does not make it valid: {@link #problems()} checks every value and the few relations between
 * them, and the commands check before they start anything.
 */
public final class Config {

    private final Scope scope;
    /** By {@link Setting#index()}; only the scope's settings are set. */
    private final Object[] values;

    private Config(Scope scope, Object[] values) {
        this.scope = scope;
        this.values = values;
    }

    /** Every setting of {@code scope} at its default. */
    public static Config defaults(Scope scope) {
        Object[] values = new Object[Settings.ALL.size()];
        for (Setting<?> setting : Settings.in(scope)) {
            values[setting.index()] = setting.defaultValue();
        }
        return new Config(scope, values);
    }

    public Scope scope() {
        return scope;
    }

    /** The value of {@code setting}, which must be one of this scope's. */
    @SuppressWarnings("unchecked")
    public <T> T get(Setting<T> setting) {
        requireInScope(setting);
        return (T) values[setting.index()];
    }

    /** This configuration with {@code setting} at {@code value} (lists are copied). */
    public <T> Config with(Setting<T> setting, T value) {
        requireInScope(setting);
        Object[] changed = values.clone();
        changed[setting.index()] = setting.type().canonical(value);
        return new Config(scope, changed);
    }

    /** Whether {@code setting} is at its default. */
    public boolean isDefault(Setting<?> setting) {
        return Objects.equals(get(setting), setting.defaultValue());
    }

    /**
     * What is wrong with these values: each setting's problem, then those of the settings' relations, every one
     * naming its flag. Empty when all is well.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (Setting<?> setting : Settings.in(scope)) {
            String problem = problemOf(setting);
            if (problem != null) {
                problems.add(problem);
            }
        }
        problems.addAll(Relations.problems(this));
        return problems;
    }

    /**
     * This configuration, when it has no {@link #problems()}.
     *
     * @throws IllegalArgumentException listing every problem, one a line
     */
    public Config validated() {
        List<String> problems = problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        return this;
    }

    private <T> String problemOf(Setting<T> setting) {
        return setting.problem(get(setting));
    }

    private void requireInScope(Setting<?> setting) {
        if (!setting.appliesTo(scope)) {
            throw new IllegalArgumentException(setting.flag() + " is not a setting of " + scope);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Config that && scope == that.scope && Arrays.equals(values, that.values);
    }

    @Override
    public int hashCode() {
        return 31 * scope.hashCode() + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(scope.toString()).append(" {");
        for (Setting<?> setting : Settings.in(scope)) {
            if (!isDefault(setting)) {
                out.append(' ').append(setting.flag()).append('=').append(get(setting));
            }
        }
        return out.append(" }").toString();
    }
}
