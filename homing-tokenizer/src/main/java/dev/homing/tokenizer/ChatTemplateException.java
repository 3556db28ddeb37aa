package dev.homing.tokenizer;

/** A chat template refused a chat, or could not be rendered: the client's chat is at fault, with this message. */
public final class ChatTemplateException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public ChatTemplateException(String message) {
        super(message);
    }
}
