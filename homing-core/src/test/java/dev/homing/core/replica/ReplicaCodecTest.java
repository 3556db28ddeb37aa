package dev.homing.core.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaCodecTest {

    @Test
    void everyKindOfEventComesBackAsItWasSent() {
        List<ReplicaEvent> events = List.of(
                new ReplicaEvent.Placed("model/a", "http://w0:8000", -5, new long[] {1, Long.MIN_VALUE}, 9000, 512),
                new ReplicaEvent.Trimmed("model/a", "http://w0:8000", 77, 3, new long[] {8}),
                new ReplicaEvent.Held("model/a", 0, 42, List.of("http://w0:8000", "http://w1:8000")),
                new ReplicaEvent.Loads(Map.of("http://w1:8000", 3)));

        ReplicaCodec.Frame frame = ReplicaCodec.decode(ReplicaCodec.encode(123, events));

        assertThat(frame.replica()).isEqualTo(123);
        assertThat(frame.events()).hasSize(4);
        ReplicaEvent.Placed placed = (ReplicaEvent.Placed) frame.events().getFirst();
        assertThat(placed.model()).isEqualTo("model/a");
        assertThat(placed.worker()).isEqualTo("http://w0:8000");
        assertThat(placed.parent()).isEqualTo(-5);
        assertThat(placed.blocks()).containsExactly(1, Long.MIN_VALUE);
        assertThat(placed.textChars()).isEqualTo(9000);
        assertThat(placed.heldChars()).isEqualTo(512);
        ReplicaEvent.Trimmed trimmed = (ReplicaEvent.Trimmed) frame.events().get(1);
        assertThat(Arrays.asList(trimmed.anchor(), (long) trimmed.anchorBlocks(), trimmed.keptPath()[0]))
                .containsExactly(77L, 3L, 8L);
        assertThat(frame.events().get(2)).isEqualTo(events.get(2));
        assertThat(frame.events().get(3)).isEqualTo(events.get(3));
    }

    @Test
    void aTextRepeatedInAFrameTravelsOnce() {
        ReplicaEvent.Placed one = new ReplicaEvent.Placed("m", "http://worker:1", 0, new long[0], 10, 0);
        int single = ReplicaCodec.encode(1, List.of(one)).length;
        int triple = ReplicaCodec.encode(1, List.of(one, one, one)).length;

        assertThat(triple - single).isLessThan(2 * single - 20);
    }

    @Test
    void aFrameOfAnotherVersionOrCutShortIsRefused() {
        byte[] frame = ReplicaCodec.encode(1, List.of(new ReplicaEvent.Loads(Map.of("w", 1))));
        byte[] other = frame.clone();
        other[0] = 9;

        assertThatThrownBy(() -> ReplicaCodec.decode(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 9");
        assertThatThrownBy(() -> ReplicaCodec.decode(Arrays.copyOf(frame, frame.length - 2)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
