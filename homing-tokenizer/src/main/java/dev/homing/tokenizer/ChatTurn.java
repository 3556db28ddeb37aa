package dev.homing.tokenizer;

import java.util.Objects;

/** One message of a chat as a template sees it: its role and its plain text. */
public record ChatTurn(String role, String content) {
    public ChatTurn {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }
}
