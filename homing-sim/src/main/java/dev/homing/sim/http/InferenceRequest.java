package dev.homing.sim.http;

/**
 * One prompt of an inference request, reduced to what the engine and the renderer need. A batch request
 * ({@code /generate} with arrays of prompts, or {@code sampling_params.n} above 1) is one of these an item.
 *
 * @param promptTokens     the prompt as token ids (chat messages already rendered through the template)
 * @param maxNewTokens     output length; the simulated model always writes exactly this many tokens
 * @param stream           answer as server-sent events
 * @param includeUsage     streaming OpenAI answers end with a usage chunk ({@code stream_options.include_usage})
 * @param model            the model named in the request, echoed back
 * @param logprobs         the answer carries log probabilities ({@code return_logprob}, {@code logprobs})
 * @param dataParallelRank the rank asked for ({@code data_parallel_rank}), or null for any
 * @param bootstrap        the item's prefill/decode room, or null for a request the engine serves alone
 */
record InferenceRequest(Api api, int[] promptTokens, int maxNewTokens, boolean stream, boolean includeUsage,
                        String model, boolean logprobs, Integer dataParallelRank, Bootstrap bootstrap) {

    /**
     * Where the item's prefill runs, and the room that pairs its prefill with its decode.
     *
     * @param host the prefill engine's host
     * @param port the prefill engine's bootstrap port
     * @param room the bootstrap room, a non-negative 63-bit integer
     */
    record Bootstrap(String host, int port, long room) {
    }
}
