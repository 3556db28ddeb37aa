package dev.homing.gateway.kvevents;

import dev.homing.core.kv.ExactOverlay;
import io.vertx.core.Future;

import java.util.OptionalLong;

/**
 * What the exact view says of one request.
 *
 * @param overlay       what each exact worker's engine holds of the prompt, to route on; null when no worker of the
 *                      model is exact now, or while its tokens are not verified yet
 * @param countedTokens the prompt's tokens as the gateway counted them, to compare with the usage the engine reports
 *                      ({@link ExactRouting#checked}); null when no check is due. It may complete after the
 *                      routing (a whole count on a worker thread); a count not done when the answer ends is not
 *                      checked.
 * @param unheldBlock   one of the prompt's own blocks that no engine held, far enough from its end that the engine
 *                      which prefills it must store it: for an answer without usage, its events are the check
 *                      ({@link ExactRouting#blockStored}); empty when there is none or no check is due
 */
public record ExactLookup(ExactOverlay overlay, Future<Integer> countedTokens, OptionalLong unheldBlock) {
}
