package dev.homing.config;

/** Where a setting applies: each command reads the settings of one scope. */
public enum Scope {
    /** {@code homing launch}, and its {@code --config} YAML file. */
    GATEWAY,
    /** {@code homing sim-engine}: one simulated engine over HTTP. */
    SIM_ENGINE,
    /** {@code homing simulate} and {@code homing compare}: the offline simulator. */
    SIMULATE
}
