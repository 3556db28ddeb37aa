package dev.homing.gateway.metrics;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.OneWorkerGateway;
import dev.homing.gateway.testing.RunningGateway;
import io.prometheus.metrics.config.PrometheusProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class GatewayMetricsTest {

    @RegisterExtension
    static final OneWorkerGateway setup =
            new OneWorkerGateway("model-a", config -> config.with(Settings.POLICY, "cache_aware"));
    private static String scrape;
    private static String workerUrl;

    @BeforeAll
    static void twoRequestsThenAScrape() {
        RunningGateway gateway = setup.gateway();
        gateway.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}");
        gateway.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}");
        // A request's record is written just after its answer's last bytes go out, not before.
        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.inFlight() == 0 && gateway.metric(
                "smg_http_requests_total{method=\"POST\",path=\"/v1/chat/completions\"}") == 2);
        scrape = gateway.scrapeMetrics();
        workerUrl = setup.worker().url();
    }

    /** No span is ever current on the gateway's threads: exemplar sampling would be work for nothing. */
    @Test
    void exemplarsAreOffByTheBundledClientSettings() {
        assertThat(PrometheusProperties.get().getDefaultMetricProperties().getExemplarsEnabled()).isFalse();
    }

    @Test
    void httpRequestsAreCountedWithTheReferenceNamesAndLabels() {
        assertThat(scrape).contains("smg_http_requests_total{method=\"POST\",path=\"/v1/chat/completions\"} 2.0")
                .contains("smg_http_responses_total{error_code=\"\",status_code=\"200\"} 2.0");
    }

    @Test
    void durationHistogramsUseTheReferenceBuckets() {
        assertThat(scrape).contains("smg_http_request_duration_seconds_bucket{method=\"POST\","
                + "path=\"/v1/chat/completions\",le=\"240.0\"} 2");
    }

    @Test
    void routedRequestsAndWorkerSelectionsAreCounted() {
        assertThat(scrape).contains("smg_router_requests_total{backend_type=\"sglang\",connection_mode=\"http\","
                        + "endpoint=\"/v1/chat/completions\",model=\"model-a\",router_type=\"http_regular\","
                        + "streaming=\"false\"} 2")
                .contains("smg_worker_selection_total{connection_mode=\"http\",model=\"model-a\","
                        + "policy=\"cache_aware\",worker_type=\"regular\"} 2");
    }

    @Test
    void upstreamStatusesAndBreakerOutcomesCarryTheirLabels() {
        assertThat(scrape).contains("smg_router_upstream_responses_total{error_code=\"\",router_type=\"http_regular\","
                        + "status_code=\"200\"} 2.0")
                .contains("smg_worker_cb_outcomes_total{outcome=\"success\",worker=\"" + workerUrl + "\"} 2.0");
    }

    @Test
    void workerGaugesAreReadFromTheRegistry() {
        assertThat(scrape).contains("smg_worker_requests_active{worker=\"" + workerUrl + "\"} 0")
                .contains("smg_worker_health{worker=\"" + workerUrl + "\"} 1")
                .contains("smg_worker_pool_size{connection_mode=\"http\",model=\"model-a\",worker_type=\"regular\"} 1");
    }

    @Test
    void cacheAwareBranchesAndTheTreeAreVisible() {
        assertThat(scrape).contains("homing_routing_decisions_total{branch=")
                .contains("homing_tree_chars{model=\"model-a\"}")
                .contains("homing_routing_match_ratio_bucket");
    }

    @Test
    void theDefaultPolicysTreeIsVisibleToo() {
        FakeWorker other = FakeWorker.start("model-b");
        try (RunningGateway defaults = RunningGateway.start(RunningGateway.config(List.of(other)))) {
            defaults.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}");
            String scraped = defaults.scrapeMetrics();

            assertThat(scraped).contains("policy=\"load_aware_affinity\"")
                    .contains("homing_tree_chars{model=\"model-b\"}")
                    .contains("homing_tree_evicted_chars_total{model=\"model-b\"}");
        } finally {
            other.close();
        }
    }

    @Test
    void requestsPerWorkerAreCounted() {
        assertThat(scrape).contains("homing_worker_requests_total{model=\"model-a\",worker=\"" + workerUrl
                + "\"} 2.0");
    }

    @Test
    void realisedCacheHitsAreCountedFromTheWorkersUsage() {
        assertThat(scrape).contains("homing_prompt_tokens_total{model=\"model-a\",worker=\"" + workerUrl
                + "\"} 10").contains("homing_cached_tokens_total{model=\"model-a\",worker=\"" + workerUrl
                + "\"} 4");
    }
}
