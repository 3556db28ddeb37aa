package dev.homing.gateway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Keeps docs/COMPATIBILITY.md true: every launch flag has a row, and "not yet" means the flag is refused. */
class CompatibilityDocTest {

    private static final Path DOC = Path.of("..", "docs", "COMPATIBILITY.md");
    /**
     * Built (gateway.discovery.DiscoverySettings, docs/KUBERNETES.md) and still refused by {@code homing launch}
     * until the configuration table wires them: their rows say what the feature does. Empty once wired.
     */
    private static final Set<String> BUILT_AWAITING_WIRING = Set.of("--service-discovery", "--selector",
            "--service-discovery-port", "--service-discovery-namespace", "--bootstrap-port-annotation");
    /** Status column by every name a row shows. */
    private static final Map<String, String> STATUS_BY_FLAG = new HashMap<>();

    @BeforeAll
    static void readTheTable() throws IOException {
        for (String line : Files.readAllLines(DOC)) {
            String[] cells = line.split("\\|");
            if (cells.length < 5 || !cells[2].contains("`--")) {
                continue;
            }
            for (String shown : cells[2].split("/")) {
                String flag = shown.trim().replace("`", "").split(" ")[0];
                STATUS_BY_FLAG.put(flag, cells[4].trim());
            }
        }
    }

    @Test
    void everyLaunchFlagHasARow() {
        for (OptionSpec option : new CommandLine(new LaunchCommand()).getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            for (String name : option.names()) {
                assertThat(STATUS_BY_FLAG).as("row for %s in %s", name, DOC).containsKey(name);
            }
        }
    }

    @Test
    void notYetRowsAreExactlyTheRefusedFlags() {
        for (Map.Entry<String, String> row : STATUS_BY_FLAG.entrySet()) {
            boolean refused = LaunchCommand.UNSUPPORTED.contains(row.getKey())
                    && !BUILT_AWAITING_WIRING.contains(row.getKey());
            assertThat(row.getValue().equals("not yet")).as("status of %s", row.getKey()).isEqualTo(refused);
        }
    }
}
