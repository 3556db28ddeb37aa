package dev.homing.bench.simulate;

import dev.homing.bench.workload.ChatMessage;
import dev.homing.core.request.RequestKind;
import dev.homing.core.request.RoutingTextBuilder;
import dev.homing.sim.model.ChatTemplate;
import dev.homing.sim.model.Tokenizer;
import java.util.ArrayList;
import java.util.List;

/**
 * How the simulated client sends a workload's requests, which fixes both what the engine tokenizes and what the
 * gateway routes on, the same way the live path would:
 * <ul>
 *   <li>{@link #COMPLETION}: {@code /v1/completions} with the one user message as {@code prompt}. The engine
 *       tokenizes the text alone; the routing text is the prompt text itself. Used for trace text (Mooncake), whose
 *       characters map one to one onto the trace's tokens.</li>
 *   <li>{@link #CHAT}: {@code /v1/chat/completions} without tools. The engine applies its chat template.</li>
 * </ul>
 * The routing text comes from the gateway's own rule for the request kind ({@link RoutingTextBuilder}).
 * Stateless and thread-safe.
 */
public enum RequestShape {
    COMPLETION {
        @Override
        public RenderedRequest render(List<ChatMessage> messages) {
            if (messages.size() != 1) {
                throw new IllegalArgumentException("a completion request carries one prompt, not "
                        + messages.size() + " messages");
            }
            String text = messages.getFirst().content();
            RoutingTextBuilder routingText = RoutingTextBuilder.of(RequestKind.COMPLETION);
            routingText.text().append(text);
            return new RenderedRequest(routingText.build(), Tokenizer.encode(text));
        }
    },
    CHAT {
        @Override
        public RenderedRequest render(List<ChatMessage> messages) {
            List<dev.homing.sim.model.ChatMessage> engineMessages = new ArrayList<>(messages.size());
            int length = 0;
            for (ChatMessage m : messages) {
                engineMessages.add(new dev.homing.sim.model.ChatMessage(m.role(), m.content()));
                length += m.role().length() + m.content().length() + 4;
            }
            RoutingTextBuilder routingText = RoutingTextBuilder.of(RequestKind.CHAT, length);
            for (ChatMessage m : messages) {
                routingText.message(m.role(), m.content());
            }
            return new RenderedRequest(routingText.build(), ChatTemplate.encode(engineMessages));
        }
    };

    /** The request as the gateway and the engine see it. */
    public abstract RenderedRequest render(List<ChatMessage> messages);

    /**
     * One request on the wire.
     *
     * @param routingText  what the gateway extracts and the policy matches
     * @param promptTokens what the engine computes and caches
     */
    public record RenderedRequest(String routingText, int[] promptTokens) {
    }
}
