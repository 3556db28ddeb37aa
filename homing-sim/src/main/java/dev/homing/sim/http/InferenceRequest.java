package dev.homing.sim.http;

/**
 * An inference request reduced to what the engine and the renderer need.
 *
 * @param promptTokens  the prompt as token ids (chat messages already rendered through the template)
 * @param maxNewTokens  output length; the simulated model always writes exactly this many tokens
 * @param stream        answer as server-sent events
 * @param includeUsage  streaming OpenAI answers end with a usage chunk ({@code stream_options.include_usage})
 * @param model         the model named in the request, echoed back
 */
record InferenceRequest(Api api, int[] promptTokens, int maxNewTokens, boolean stream, boolean includeUsage,
                        String model) {
}
