package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class PrefillDecodeSettingsTest {

    private static Config gateway(String... args) {
        return CommandOptionsTest.gateway(args).config();
    }

    @Test
    void eachPrefillUrlMayBeFollowedByItsBootstrapPort() {
        Config config = gateway("--pd-disaggregation", "--prefill", "http://p1:30000", "8998",
                "--prefill", "http://p2:30000/", "--decode", "http://d1:30000", "--decode", "http://d2:30000");

        assertThat(WorkerUrls.prefills(config.get(Settings.PREFILL))).containsExactly(
                new WorkerUrls.Prefill("http://p1:30000", 8998), new WorkerUrls.Prefill("http://p2:30000", null));
        assertThat(config.get(Settings.DECODE)).containsExactly("http://d1:30000", "http://d2:30000");
    }

    @Test
    void aConfigFileMayWriteAPrefillWorkerAndItsPortAsOneEntry() {
        assertThat(WorkerUrls.prefills(List.of("http://p1:30000 8998", "http://p2:1")))
                .containsExactly(new WorkerUrls.Prefill("http://p1:30000", 8998),
                        new WorkerUrls.Prefill("http://p2:1", null));
    }

    @Test
    void aBootstrapPortWithoutItsUrlOrOutOfRangeIsRefused() {
        assertThat(WorkerUrls.prefillProblem(List.of("8998", "http://p:1")))
                .isEqualTo(": '8998' must follow a prefill URL, as its bootstrap port");
        assertThat(WorkerUrls.prefillProblem(List.of("http://p:1", "1", "2")))
                .isEqualTo(": '2' must follow a prefill URL, as its bootstrap port");
        assertThat(WorkerUrls.prefillProblem(List.of("http://p:1", "70000")))
                .isEqualTo(": bootstrap port '70000' must be 1..65535");
    }

    @Test
    void theDecodeLegDefaultsToItsOwnRuleAndThePrefillLegToThePolicy() {
        Config config = gateway("--pd-disaggregation");
        assertThat(config.get(Settings.DECODE_POLICY)).isEqualTo("decode_balance");
        assertThat(config.get(Settings.PREFILL_POLICY)).isNull();
        assertThatThrownBy(() -> gateway("--pd-disaggregation", "--prefill-policy", "decode_balance"))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--prefill-policy must be one of");
    }

    @Test
    void prefillDecodeFlagsNeedPrefillDecodeMode() {
        assertThatThrownBy(() -> gateway("--prefill", "http://p:1", "--decode-policy", "round_robin"))
                .isInstanceOf(ParameterException.class)
                .hasMessage("--prefill needs --pd-disaggregation\n--decode-policy needs --pd-disaggregation");
    }

    @Test
    void regularWorkersHaveNoPlaceInPrefillDecodeMode() {
        assertThatThrownBy(() -> gateway("--pd-disaggregation", "--worker-urls", "http://w:1"))
                .isInstanceOf(ParameterException.class)
                .hasMessageStartingWith("--worker-urls names regular workers, which take no traffic with "
                        + "--pd-disaggregation");
    }

    @Test
    void discoveryInPrefillDecodeModeNeedsBothRoleSelectorsAndNoRegularOne() {
        assertThatThrownBy(() -> gateway("--pd-disaggregation", "--service-discovery", "--selector", "app=x",
                "--prefill-selector", "role=prefill"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--selector picks regular workers")
                .hasMessageContaining("needs both --prefill-selector and --decode-selector");
        assertThat(gateway("--pd-disaggregation", "--service-discovery", "--prefill-selector", "role=prefill",
                "--decode-selector", "role=decode").get(Settings.DECODE_SELECTOR)).containsExactly("role=decode");
    }

    @Test
    void aRankedWorkerUrlNeedsDataParallelAwareness() {
        assertThatThrownBy(() -> gateway("--worker-urls", "http://e:1@0"))
                .isInstanceOf(ParameterException.class)
                .hasMessage("'http://e:1@0' names a data-parallel rank, which needs --dp-aware");
        assertThat(gateway("--dp-aware", "--worker-urls", "http://e:1@0,http://e:1@1").get(Settings.WORKER_URLS))
                .containsExactly("http://e:1@0", "http://e:1@1");
    }

    @Test
    void aRankIsReadFromTheEndOfAWorkerUrlAndUserInfoIsRefused() {
        assertThat(WorkerUrls.rank("http://e:1@3")).isEqualTo(3);
        assertThat(WorkerUrls.rank("http://e:1")).isNull();
        assertThat(WorkerUrls.engine("http://e:1@3")).isEqualTo("http://e:1");
        assertThat(WorkerUrls.normalize("http://e:1/@3")).isEqualTo("http://e:1@3");
        assertThat(WorkerUrls.problem("http://e:1@3")).isNull();
        assertThat(WorkerUrls.problem("http://user@e:1"))
                .isEqualTo("'http://user@e:1' must not hold user info; a data-parallel rank is written url@rank");
    }
}
