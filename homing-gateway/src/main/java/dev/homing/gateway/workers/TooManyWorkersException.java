package dev.homing.gateway.workers;

/** The registry holds as many workers as {@code --max-workers} allows: a new one is refused (429 for the API). */
public final class TooManyWorkersException extends IllegalStateException {

    TooManyWorkersException(int max) {
        super("The gateway already has " + max + " workers registered (pending ones included), the most "
                + "--max-workers allows; remove one or raise the limit");
    }
}
