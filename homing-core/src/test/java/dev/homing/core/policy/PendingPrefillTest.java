package dev.homing.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingPrefillTest {

    private final PendingPrefill prefill = new PendingPrefill();
    private final List<String> ran = new ArrayList<>();

    @Test
    void waitersRunOnceWhenThePrefillFinishes() {
        prefill.whenDone(() -> ran.add("a"));
        prefill.whenDone(() -> ran.add("b"));
        assertThat(ran).isEmpty();

        prefill.finish();
        prefill.finish();

        assertThat(ran).containsExactly("a", "b");
        assertThat(prefill.isDone()).isTrue();
    }

    @Test
    void aWaiterAddedAfterTheEndRunsAtOnce() {
        prefill.finish();

        prefill.whenDone(() -> ran.add("late"));

        assertThat(ran).containsExactly("late");
    }
}
