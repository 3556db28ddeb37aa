package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.homing.bench.report.Comparison;
import dev.homing.bench.report.ComparisonReport;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyComparisonTest {

    private static final GeneratedSharedPrefix WORKLOAD =
            new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(8, 4, 512, 32, 16, 50.0, true, 3));

    @TempDir
    Path dir;

    @Test
    void everyPolicyRunsInTheOrderGivenAndIsReportedAsItFinishes() {
        List<String> heard = new ArrayList<>();

        PolicyComparison runs = PolicyComparison.run(SimulationSettings.defaults(4), RequestShape.CHAT, WORKLOAD,
                List.of("random", "cache_aware"), result -> heard.add(result.policy()));

        assertThat(heard).containsExactly("random", "cache_aware");
        assertThat(runs.runs()).extracting(SimulationResult::policy).containsExactly("random", "cache_aware");
    }

    @Test
    void theReportCarriesEachPolicyAndTheBoundsOfItsRequests() {
        PolicyComparison runs = PolicyComparison.run(SimulationSettings.defaults(4), RequestShape.CHAT, WORKLOAD,
                List.of("round_robin", "cache_aware"), result -> { });

        Comparison report = runs.report();

        SimulationResult first = runs.runs().getFirst();
        assertThat(report.policies()).hasSize(2);
        assertThat(report.policies().getFirst().hitRate()).isEqualTo(first.hitRate());
        assertThat(report.policies().getFirst().ttftP99Millis()).isEqualTo(first.ttftMillis(99));
        assertThat(report.policies().getFirst().maxOverMeanLoad()).isCloseTo(first.maxMeanLoad(),
                within(1e-9));
        assertThat(report.bounds().oracle()).isEqualTo(first.bounds().oracle().tokenRate());
        assertThat(report.bounds().pooledTokens()).isEqualTo(4L * 400_000);
    }

    @Test
    void theReportFilesAreWritten() throws IOException {
        PolicyComparison runs = PolicyComparison.run(SimulationSettings.defaults(4), RequestShape.CHAT, WORKLOAD,
                List.of("round_robin", "cache_aware"), result -> { });

        ComparisonReport.write(runs.report(), dir);

        assertThat(dir.resolve(ComparisonReport.MARKDOWN)).content().contains("| cache_aware |");
        assertThat(dir.resolve(ComparisonReport.JSON)).content().contains("\"round_robin\"");
        assertThat(Files.readString(dir.resolve(ComparisonReport.TTFT_CHART))).contains("<svg");
        assertThat(dir.resolve(ComparisonReport.HIT_RATE_CHART)).exists();
        assertThat(dir.resolve(ComparisonReport.LOAD_CHART)).exists();
    }
}
