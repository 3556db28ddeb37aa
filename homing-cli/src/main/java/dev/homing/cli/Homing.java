package dev.homing.cli;

/** The {@code homing} executable. */
public final class Homing {
    private Homing() {
    }

    public static void main(String[] args) {
        System.out.println("homing: not built yet");
    }
}
