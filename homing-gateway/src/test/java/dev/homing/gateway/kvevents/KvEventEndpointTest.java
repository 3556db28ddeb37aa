package dev.homing.gateway.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Settings;
import dev.homing.core.kv.KvEventLiveness.State;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

class KvEventEndpointTest {

    @Test
    void aBindAddressBecomesTheWorkersHostAndARankMovesThePort() {
        assertThat(KvEventEndpoint.at("tcp://*:5557", "10.0.0.7", null)).isEqualTo("tcp://10.0.0.7:5557");
        assertThat(KvEventEndpoint.at("tcp://0.0.0.0:5557", "10.0.0.7", 3)).isEqualTo("tcp://10.0.0.7:5560");
        assertThat(KvEventEndpoint.at("tcp://engine-a:6000", "10.0.0.7", null)).isEqualTo("tcp://engine-a:6000");
        assertThat(KvEventEndpoint.at("tcp://*:5557", "::1", null)).isEqualTo("tcp://[::1]:5557");
    }

    @Test
    void serverInfoGivesTheEndpointReplayAndTopicAsAnObjectOrAJsonString() {
        byte[] asString = """
                {"kv_events_config":"{\\"publisher\\":\\"zmq\\",\\"endpoint\\":\\"tcp://*:5557\\",\
                \\"replay_endpoint\\":\\"tcp://*:5558\\",\\"topic\\":\\"kv-events\\"}"}"""
                .getBytes(StandardCharsets.UTF_8);
        byte[] asObject = "{\"kv_events_config\":{\"endpoint\":\"tcp://*:5557\"}}".getBytes(StandardCharsets.UTF_8);

        assertThat(KvEventEndpoint.fromServerInfo(asString, "h", 1)).isEqualTo(new KvEventEndpoint("tcp://h:5558",
                "tcp://h:5559", "kv-events", KvEventDecoder.ArrayLayout.SGLANG));
        assertThat(KvEventEndpoint.fromServerInfo(asObject, "h", null).endpoint()).isEqualTo("tcp://h:5557");
        assertThat(KvEventEndpoint.fromServerInfo("{}".getBytes(StandardCharsets.UTF_8), "h", null)).isNull();
        assertThat(KvEventEndpoint.byDefault("h", null).endpoint()).isEqualTo("tcp://h:5557");
        assertThat(KvEventEndpoint.fromTemplate("tcp://{host}:7000", "h", 2).endpoint()).isEqualTo("tcp://h:7002");
    }

    @Test
    void anActiveWorkerIsSubscribedWhereItsServerInfoSaysAndForgottenWhenRemoved() throws Exception {
        try (TestPublisher publisher = new TestPublisher("kv-events", true, true);
             FakeWorker worker = FakeWorker.start("m")) {
            String port = publisher.endpoint().substring(publisher.endpoint().lastIndexOf(':') + 1);
            String replayPort = publisher.replayEndpoint().substring(publisher.replayEndpoint().lastIndexOf(':') + 1);
            worker.kvEventsConfig("\"{\\\"publisher\\\":\\\"zmq\\\",\\\"endpoint\\\":\\\"tcp://*:" + port
                    + "\\\",\\\"replay_endpoint\\\":\\\"tcp://*:" + replayPort + "\\\",\\\"topic\\\":\\\"kv-events\\\"}\"");
            try (RunningGateway running = RunningGateway.start(RunningGateway.config(List.of(worker)))) {
                Gateway gateway = running.gateway();
                publisher.awaitSubscriber();
                publisher.store(1, null, new int[16], 16);

                await().atMost(Duration.ofSeconds(30)).until(() -> gateway.kvEvents().statuses().stream()
                        .anyMatch(s -> s.state() == State.EXACT));
                assertThat(running.get("/kv_events").body()).contains("\"state\":\"exact\"")
                        .contains("\"endpoint\":\"" + publisher.endpoint() + "\"").contains("\"last_sequence\":0");
                WorkerStream.Status status = gateway.kvEvents().statuses().iterator().next();
                assertThat(status.worker()).isEqualTo(worker.url());
                assertThat(status.endpoint()).isEqualTo(publisher.endpoint());
                assertThat(status.replay()).isEqualTo(publisher.replayEndpoint());

                gateway.registry().remove(worker.url());

                await().atMost(Duration.ofSeconds(30)).until(() -> gateway.kvEvents().statuses().isEmpty());
            }
        }
    }

    @Test
    void aWorkerWhoseServerInfoReportsNoKvEventsIsSubscribedToNothingAndShownNone() {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway running = RunningGateway.start(RunningGateway.config(List.of(worker)))) {
            Gateway gateway = running.gateway();

            await().atMost(Duration.ofSeconds(30)).until(() -> !gateway.kvEvents().statuses().isEmpty());

            assertThat(gateway.kvEvents().statuses()).singleElement().satisfies(s -> {
                assertThat(s.state()).isEqualTo(State.NONE);
                assertThat(s.reason()).isEqualTo("engine_reports_no_kv_events");
                assertThat(s.endpoint()).isNull();
            });
            assertThat(running.get("/kv_events").body()).contains("\"state\":\"none\"")
                    .contains("\"reason\":\"engine_reports_no_kv_events\"");
        }
    }

    @Test
    void offSubscribesToNothing() {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway running = RunningGateway.start(RunningGateway.config(List.of(worker))
                     .with(Settings.KV_EVENTS, "off"))) {
            assertThat(running.gateway().kvEvents()).isNull();
        }
    }
}
