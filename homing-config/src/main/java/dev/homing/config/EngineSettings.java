package dev.homing.config;

import dev.homing.sim.http.DisaggregationMode;
import dev.homing.sim.http.Faults;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.kvevents.KvEventFault;
import dev.homing.sim.kvevents.KvEventsFormat;
import dev.homing.sim.kvevents.KvEventsOptions;
import dev.homing.sim.model.BuiltInTokenizer;
import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.TimingModel;
import dev.homing.tokenizer.PromptTokenizer;
import java.util.concurrent.TimeUnit;

/** The simulated engine's records from a configuration: one engine over HTTP, or a simulated fleet's engine model. */
public final class EngineSettings {

    private EngineSettings() {
    }

    /** The engine model of {@code config} (a sim-engine's or a simulation's), salted with {@code seed}. */
    public static EngineConfig engine(Config config, long seed) {
        TimingModel timing = new TimingModel(config.get(Settings.PREFILL_TOKENS_PER_SECOND),
                TimeUnit.MICROSECONDS.toNanos(config.get(Settings.PREFILL_STEP_US)),
                TimeUnit.MICROSECONDS.toNanos(config.get(Settings.DECODE_STEP_US)),
                TimeUnit.MICROSECONDS.toNanos(config.get(Settings.DECODE_US_PER_REQUEST)),
                config.get(Settings.DECODE_NS_PER_CONTEXT_TOKEN));
        return new EngineConfig(config.get(Settings.KV_TOKENS), config.get(Settings.PAGE_SIZE),
                config.get(Settings.MAX_RUNNING_REQUESTS), config.get(Settings.CHUNKED_PREFILL_SIZE),
                config.get(Settings.CONTEXT_LENGTH), timing, seed);
    }

    /** The prefill and decode roles' settings of {@code config}, with the 8B model's KV size a token. */
    public static DisaggregationConfig disaggregation(Config config) {
        return new DisaggregationConfig((long) (config.get(Settings.DISAGGREGATION_BOOTSTRAP_TIMEOUT_SECS) * 1e9),
                config.get(Settings.KV_TRANSFER_BANDWIDTH_GBPS),
                (long) (config.get(Settings.KV_TRANSFER_LATENCY_MS) * 1e6),
                DisaggregationConfig.DEFAULTS.kvBytesPerToken());
    }

    /**
     * How {@code homing sim-engine} runs: its server, its engine model, its role and ranks and its faults, all on its
     * one seed.
     *
     * @throws IllegalArgumentException for settings no engine can have together (ranks with a prefill/decode role)
     */
    public static SimEngineOptions server(Config config) {
        long seed = config.get(Settings.ENGINE_SEED);
        Faults faults = new Faults(config.get(Settings.FAIL_RATE), config.get(Settings.FAIL_STATUS),
                config.get(Settings.STALL_AFTER_TOKENS), config.get(Settings.RESET_AFTER_TOKENS),
                config.get(Settings.DIE_AFTER_REQUESTS), config.get(Settings.SLOW_HEALTH_MS), seed);
        return new SimEngineOptions(config.get(Settings.ENGINE_HOST), config.get(Settings.ENGINE_PORT),
                config.get(Settings.MODEL_NAME), config.get(Settings.TIME_SCALE), engine(config, seed), faults,
                config.get(Settings.RECORD_REQUEST_IDS),
                DisaggregationMode.parse(config.get(Settings.DISAGGREGATION_MODE)),
                config.get(Settings.DISAGGREGATION_BOOTSTRAP_PORT), disaggregation(config),
                config.get(Settings.DP_SIZE), tokenizer(config), kvEvents(config));
    }

    /**
     * Whether and how the engine publishes its KV events ({@code --kv-events-config}, {@code --kv-events-format},
     * {@code --kv-events-fault}).
     */
    public static KvEventsOptions kvEvents(Config config) {
        String json = config.get(Settings.ENGINE_KV_EVENTS_CONFIG);
        return json == null ? KvEventsOptions.OFF : KvEventsOptions.of(json)
                .withFormat(KvEventsFormat.parse(config.get(Settings.ENGINE_KV_EVENTS_FORMAT)))
                .withFault(KvEventFault.parse(config.get(Settings.ENGINE_KV_EVENTS_FAULT)));
    }

    /**
     * The tokenizer the settings name ({@link TokenizerFiles}), opened (it lives as long as the engine), or the
     * built-in one.
     *
     * @throws IllegalArgumentException when there is no tokenizer there
     */
    public static PromptTokenizer tokenizer(Config config) {
        PromptTokenizer named = TokenizerFiles.open(config);
        return named == null ? BuiltInTokenizer.INSTANCE : named;
    }
}
