package dev.homing.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

class ComparisonReportTest {

    private final Comparison comparison = Results.threePolicies();

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new InputSource(new StringReader(svg)));
    }

    private static String texts(Document svg) {
        var nodes = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < nodes.getLength(); i++) {
            all.append(nodes.item(i).getTextContent()).append('\n');
        }
        return all.toString();
    }

    @Test
    void theMarkdownTableHasAHeaderAndOneRowPerPolicy() {
        String table = MarkdownTable.render(comparison);

        List<String> rows = table.lines().filter(l -> l.startsWith("|")).toList();
        assertThat(rows).hasSize(2 + 3);
        assertThat(rows.getFirst()).isEqualTo(
                "| policy | hit rate | TTFT p50 (ms) | TTFT p99 (ms) | requests/s | tokens/s | max/mean load | errors |");
        assertThat(rows.get(3)).isEqualTo("| cache_aware | 35.00% | 30.0 | 300.0 | 3.40 | 45,500 | 1.04 | 2 |");
    }

    @Test
    void theMarkdownStatesTheBounds() {
        assertThat(MarkdownTable.render(comparison))
                .contains("infinite-cache oracle 37.40%, pooled memory of 4,000,000 tokens 26.80%");
    }

    @Test
    void everyChartIsWellFormedSvgWithAxesLabelsAndALegend() throws Exception {
        for (String svg : List.of(ComparisonReport.ttftChart(comparison), ComparisonReport.hitRateChart(comparison),
                ComparisonReport.loadChart(comparison))) {
            Document document = parse(svg);

            assertThat(document.getDocumentElement().getLocalName()).isEqualTo("svg");
            assertThat(texts(document)).contains("random", "cache_aware", "prefix <hash> & co");
        }
    }

    @Test
    void theTtftChartDrawsOneLinePerPolicyOnALogTimeAxis() throws Exception {
        Document svg = parse(ComparisonReport.ttftChart(comparison));

        assertThat(svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline").getLength()).isEqualTo(3);
        assertThat(texts(svg)).contains("TTFT (ms, log scale)", "10\n", "100\n", "1,000\n");
    }

    @Test
    void theHitRateChartShowsBothBounds() throws Exception {
        String texts = texts(parse(ComparisonReport.hitRateChart(comparison)));

        assertThat(texts).contains("oracle 37.4%", "pooled 26.8%", "35.0%");
    }

    @Test
    void theLoadChartDrawsOneBarPerWorkerAndPolicy() throws Exception {
        Document svg = parse(ComparisonReport.loadChart(comparison));

        // 3 x 4 bars, the background and 4 legend swatches.
        assertThat(svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "rect").getLength()).isEqualTo(12 + 1 + 3);
        assertThat(texts(svg)).contains("max/mean 2.80", "even share (1/4)");
    }

    @Test
    void theJsonReadsBackToTheSameComparison() {
        String json = ComparisonReport.json(comparison);

        assertThat(ComparisonReport.readJson(json)).isEqualTo(comparison);
        assertThat(json).contains("\"policy\" : \"cache_aware\"", "\"oracle\" : 0.374");
    }

    @Test
    void aComparisonWithoutBoundsOrSamplesStillRenders() throws Exception {
        Comparison bare = new Comparison("t", "w",
                List.of(PolicyResult.of("failed", 0, LatencyCdf.EMPTY, 0, 0, 10, List.of())), null);

        assertThat(MarkdownTable.render(bare)).contains("| failed | 0.00% | – | – | 0.00 | 0 | – | 10 |")
                .doesNotContain("oracle");
        parse(ComparisonReport.ttftChart(bare));
        parse(ComparisonReport.hitRateChart(bare));
        parse(ComparisonReport.loadChart(bare));
    }

    @Test
    void writingPutsTheMarkdownJsonAndChartsInTheDirectory(@TempDir Path dir) throws IOException {
        ComparisonReport.write(comparison, dir.resolve("report"));

        assertThat(dir.resolve("report")).isDirectoryContaining(p -> p.getFileName().toString().equals("report.md"));
        assertThat(Files.readString(dir.resolve("report/report.md")))
                .startsWith("# Routing policies compared").contains("![Time to first token](ttft-cdf.svg)");
        for (String name : List.of("results.json", "ttft-cdf.svg", "hit-rate.svg", "worker-load.svg")) {
            assertThat(dir.resolve("report").resolve(name)).isNotEmptyFile();
        }
    }
}
