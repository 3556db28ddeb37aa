package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

class PredictionTallyTest {

    @Test
    void theGapIsThePredictedShareAgainstTheCachedShareMeanedPerView() {
        PredictionTally tally = new PredictionTally();
        tally.record(new RoutingNote("exact", 0.50), new Usage(1000, 10, 500));
        tally.record(new RoutingNote("exact", 0.75), new Usage(1000, 10, 700));
        tally.record(new RoutingNote("approximate", 0.90), new Usage(200, 10, 20));

        assertThat(tally.byView()).containsOnlyKeys("approximate", "exact");
        assertThat(tally.byView().get("exact").requests()).isEqualTo(2);
        assertThat(tally.byView().get("exact").meanGap()).isCloseTo(0.025, within(1e-9));
        assertThat(tally.byView().get("approximate").meanGap()).isCloseTo(0.80, within(1e-9));
    }

    @Test
    void anAnswerWithoutNoteOrCachedCountIsNotCounted() {
        PredictionTally tally = new PredictionTally();
        tally.record(null, new Usage(1000, 10, 500));
        tally.record(new RoutingNote("exact", 0.5), new Usage(1000, 10, -1));
        tally.record(new RoutingNote("exact", 0.5), null);
        tally.record(new RoutingNote("exact", 0.5), new Usage(0, 10, 0));

        assertThat(tally.byView()).isEmpty();
    }

    @Test
    void theNoteIsReadFromHomingsHeadersAndOnlyWhenBothAreThere() {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap()
                .add("X-Homing-Routing-View", "exact").add("x-homing-predicted-hit", "0.8125");
        assertThat(RoutingNote.of(headers)).isEqualTo(new RoutingNote("exact", 0.8125));
        assertThat(RoutingNote.of(MultiMap.caseInsensitiveMultiMap().add("x-homing-routing-view", "exact"))).isNull();
        assertThat(RoutingNote.of(MultiMap.caseInsensitiveMultiMap().add("x-homing-routing-view", "exact")
                .add("x-homing-predicted-hit", "most"))).isNull();
    }
}
