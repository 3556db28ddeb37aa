package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/COMPATIBILITY.md true: its table must be, cell by cell, what the settings table gives. Run with
 * {@code -Dcompatibility.write=true} to rewrite the file's table (the introduction above it stays).
 */
class CompatibilityDocTest {

    private static final Path DOC = Path.of("..", "docs", "COMPATIBILITY.md");

    @Test
    void everyRowOfTheDocumentIsTheSettingsTables() throws IOException {
        String document = Files.readString(DOC);
        if (Boolean.getBoolean("compatibility.write")) {
            document = CompatibilityTable.replaceTable(document);
            Files.writeString(DOC, document);
        }
        List<List<String>> documented = rowsOf(document);
        List<List<String>> expected = CompatibilityTable.rows();

        for (int i = 0; i < Math.max(documented.size(), expected.size()); i++) {
            List<String> want = i < expected.size() ? expected.get(i) : null;
            List<String> have = i < documented.size() ? documented.get(i) : null;
            String row = "row " + (i + 1) + " (" + (want != null ? want : have).get(1) + ")";
            assertThat(have).as("%s is missing from %s", row, DOC).isNotNull();
            assertThat(want).as("%s is in %s but not in the settings table", row, DOC).isNotNull();
            for (int column = 0; column < CompatibilityTable.COLUMNS.size(); column++) {
                assertThat(have.get(column)).as("%s, column %s", row, CompatibilityTable.COLUMNS.get(column))
                        .isEqualTo(want.get(column));
            }
        }
    }

    /** The cells of every row after the table's header and separator lines. */
    private static List<List<String>> rowsOf(String document) {
        List<List<String>> rows = new ArrayList<>();
        String header = CompatibilityTable.cells(CompatibilityTable.markdown().lines().findFirst().orElseThrow())
                .toString();
        boolean inTable = false;
        for (String line : document.lines().toList()) {
            if (!inTable) {
                inTable = line.startsWith("|") && CompatibilityTable.cells(line).toString().equals(header);
            } else if (line.startsWith("|") && !line.startsWith("|---")) {
                rows.add(CompatibilityTable.cells(line));
            } else if (!line.startsWith("|")) {
                break;
            }
        }
        return rows;
    }
}
