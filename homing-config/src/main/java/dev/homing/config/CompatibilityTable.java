package dev.homing.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The flag-by-flag table of docs/COMPATIBILITY.md, made from the gateway's settings: one row a setting, in the
 * order of {@code homing launch --help}. The file's introduction is written by hand; everything from the table's
 * header on is this class's output, which {@code CompatibilityDocTest} compares cell by cell (and rewrites on
 * request).
 */
public final class CompatibilityTable {

    /** The column names, and the first line of the table in the document. */
    public static final List<String> COLUMNS = List.of("Group", "Flag", "Default", "Status", "Notes");

    private CompatibilityTable() {
    }

    /** The rows, each with a cell per column. */
    public static List<List<String>> rows() {
        List<List<String>> rows = new ArrayList<>();
        Settings.in(Scope.GATEWAY).stream().sorted(Comparator.comparing(Setting::group)).forEach(setting -> rows.add(
                List.of(setting.group().title(),
                        setting.flags().stream().map(flag -> "`" + flag + "`").collect(Collectors.joining(" / ")),
                        setting.defaultText(), setting.compatibility().status().text(),
                        setting.compatibility().notesOf(setting))));
        return rows;
    }

    /** The table in Markdown: the header, the separator, a line a row. */
    public static String markdown() {
        StringBuilder out = new StringBuilder(line(COLUMNS));
        out.append("|---".repeat(COLUMNS.size())).append("|\n");
        rows().forEach(row -> out.append(line(row)));
        return out.toString();
    }

    /** {@code document} with its table (from the header line to the end) replaced by {@link #markdown()}. */
    public static String replaceTable(String document) {
        int header = document.indexOf(line(COLUMNS));
        if (header < 0) {
            throw new IllegalArgumentException("the document has no table starting with " + line(COLUMNS).strip());
        }
        return document.substring(0, header) + markdown();
    }

    /** Splits a table line into its cells (the cells themselves hold no '|'). */
    public static List<String> cells(String line) {
        String inner = line.strip();
        inner = inner.substring(1, inner.length() - 1);
        List<String> cells = new ArrayList<>();
        for (String cell : inner.split("\\|", -1)) {
            cells.add(cell.strip());
        }
        return cells;
    }

    private static String line(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }
}
