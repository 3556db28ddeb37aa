package dev.homing.bench.live;

import java.util.Objects;

/**
 * One request to send: its encoded body (see {@link RequestEncoder}) and whether the caller needs the answer's
 * text (a multi-turn conversation puts it into the next turn; other callers skip decoding text chunks).
 */
public record LoadRequest(byte[] body, boolean stream, boolean keepText) {

    public LoadRequest {
        Objects.requireNonNull(body, "body");
    }
}
