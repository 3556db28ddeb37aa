package dev.homing.cli.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The suite's figures table, {@code target/fault-suite/figures.md}: one row per scenario, each written by its test
 * to a file of its own and the table rebuilt from all of them, so the scenarios may run in any order.
 */
final class FaultFigures {

    /**
     * One scenario's figures.
     *
     * @param key        sorts the rows (the scenario's number in the issue)
     * @param scenario   what was done
     * @param answers    every request sent and its answer
     * @param duplicated request ids an engine answered more than once
     * @param peakHeap   the gateway's peak heap, where measured; else null
     */
    record Row(String key, String scenario, List<Answer> answers, int duplicated, String peakHeap) {

        long count(Answer.Outcome outcome) {
            return answers.stream().filter(a -> a.outcome() == outcome).count();
        }

        String markdown() {
            return "| " + scenario + " | " + answers.size() + " | " + count(Answer.Outcome.SUCCEEDED) + " | "
                    + count(Answer.Outcome.FAILED_CLEARLY) + " | " + count(Answer.Outcome.LOST) + " | "
                    + duplicated + " | " + (peakHeap == null ? "-" : peakHeap) + " |";
        }
    }

    private static final String HEADER = """
            | Scenario | Sent | Succeeded | Failed with a clear error | Lost | Duplicated | Peak gateway heap |
            |---|---|---|---|---|---|---|
            """;

    private FaultFigures() {
    }

    /** Writes {@code row} and rebuilds the table. */
    static synchronized void record(Row row) {
        Path rows = ProcessFleet.suiteDir().resolve("rows");
        try {
            Files.createDirectories(rows);
            Files.writeString(rows.resolve(row.key() + ".md"), row.markdown() + "\n");
            StringBuilder table = new StringBuilder(HEADER);
            try (Stream<Path> files = Files.list(rows)) {
                for (Path file : files.sorted().toList()) {
                    table.append(Files.readString(file));
                }
            }
            Files.writeString(ProcessFleet.suiteDir().resolve("figures.md"), table.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the fault figures", e);
        }
    }
}
