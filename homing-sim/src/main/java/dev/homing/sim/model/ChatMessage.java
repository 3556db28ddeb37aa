package dev.homing.sim.model;

import java.util.Objects;

/** One chat message as the template sees it: a role and its plain text content. */
public record ChatMessage(String role, String content) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }
}
