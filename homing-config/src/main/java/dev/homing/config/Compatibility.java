package dev.homing.config;

import java.util.Locale;

/**
 * How a gateway setting compares with the reference gateway's flag of the same name: one row of
 * docs/COMPATIBILITY.md.
 *
 * @param status  the row's status
 * @param notes   the row's notes; null for a {@link Status#SAME} row means its help description
 * @param instead for a flag Homing refuses because another of its features does the job, the sentence that names
 *                it in the refusal; null otherwise
 */
public record Compatibility(Status status, String notes, String instead) {

    public Compatibility(Status status, String notes) {
        this(status, notes, null);
    }

    /** The status column. */
    public enum Status {
        /** Same meaning and default. */
        SAME,
        /** Accepted, and behaves as the notes say (a deliberate difference). */
        DIFFERENT,
        /** The feature is not in Homing yet: accepted at its default, refused with any other value. */
        NOT_YET,
        /** Another Homing feature does the job: refused like {@link #NOT_YET}, the refusal naming it. */
        REPLACED,
        /** A Homing addition. */
        HOMING;

        /** As the table shows it: "same", "different", "not yet", "Homing". */
        public String text() {
            return this == HOMING ? "Homing" : name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /** Same as the reference; the notes are the help description. */
    public static Compatibility same() {
        return new Compatibility(Status.SAME, null);
    }

    public static Compatibility same(String notes) {
        return new Compatibility(Status.SAME, notes);
    }

    public static Compatibility different(String notes) {
        return new Compatibility(Status.DIFFERENT, notes);
    }

    public static Compatibility notYet(String notes) {
        return new Compatibility(Status.NOT_YET, notes);
    }

    /**
     * A reference flag Homing will not build because another feature does its job: refused like a {@link
     * Status#NOT_YET} one, the refusal ending with {@code instead}, which is also the row's notes.
     */
    public static Compatibility replacedBy(String instead) {
        return new Compatibility(Status.REPLACED, instead, instead);
    }

    /** A Homing addition; the notes say what it does (null: nothing beyond "Homing addition"). */
    public static Compatibility homing(String notes) {
        return new Compatibility(Status.HOMING, notes);
    }

    /** The notes cell of {@code setting}'s row. */
    String notesOf(Setting<?> setting) {
        return switch (status) {
            case SAME -> notes == null ? setting.description() : notes;
            case HOMING -> notes == null ? "Homing addition" : "Homing addition: " + notes;
            case DIFFERENT, NOT_YET, REPLACED -> notes == null ? "" : notes;
        };
    }
}
