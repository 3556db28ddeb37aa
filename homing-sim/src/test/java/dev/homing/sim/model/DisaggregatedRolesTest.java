package dev.homing.sim.model;

import static dev.homing.sim.model.EngineTest.prompt;
import static dev.homing.sim.model.EngineTest.runToIdle;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The prefill and decode roles and the KV link between them, driven in virtual time as the offline simulator does. */
class DisaggregatedRolesTest {
    private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;
    private static final TimingModel TIMING = ENGINE.timing();
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);
    /** 8 Gb/s is one byte a nanosecond, so a transfer's wire time is its bytes. */
    private static final DisaggregationConfig LINK = new DisaggregationConfig(TIMEOUT, 8, 1_000_000, 100);
    private static final long ROOM = 4_242_424_242L;

    @Test
    void aPrefillRequestWaitsForItsRoomsRegistrationThenComputesThePromptAndOneToken() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        prefill.submit(ROOM, new GenerationRequest(prompt(1, 3000), 64), 0);

        assertThat(prefill.advanceTo(TimeUnit.SECONDS.toNanos(1))).isEmpty();
        assertThat(prefill.stats().waitingRequests()).isZero();

        long registered = TimeUnit.SECONDS.toNanos(1);
        prefill.register(ROOM, registered);
        List<RoomEvent> events = runToIdle(prefill);

        assertThat(events).singleElement().isInstanceOfSatisfying(RoomEvent.Tokens.class, tokens -> {
            assertThat(tokens.room()).isEqualTo(ROOM);
            assertThat(tokens.progress().completionTokens()).isEqualTo(1);
            assertThat(tokens.progress().finished()).isTrue();
            assertThat(tokens.progress().atNanos()).isEqualTo(registered + TIMING.prefillNanos(3000));
        });
        assertThat(prefill.rooms()).isZero();
    }

    @Test
    void aRegistrationThatComesFirstLetsItsRequestRunAtOnce() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        prefill.register(ROOM, 0);
        prefill.submit(ROOM, new GenerationRequest(prompt(1, 1500), 8), 100);

        RoomEvent.Tokens first = (RoomEvent.Tokens) runToIdle(prefill).getFirst();

        assertThat(first.progress().atNanos()).isEqualTo(100 + TIMING.prefillNanos(1500));
    }

    @Test
    void aPrefillReportsTheHitOfItsOwnCacheOnTheNextTurn() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        int[] turn = prompt(1, 2000);
        prefill.register(1, 0);
        prefill.submit(1, new GenerationRequest(turn, 32), 0);
        long done = ((RoomEvent.Tokens) runToIdle(prefill).getFirst()).progress().atNanos();

        prefill.register(2, done);
        prefill.submit(2, new GenerationRequest(EngineTest.concat(turn, prompt(5000, 100)), 32), done);
        RoomEvent.Tokens second = (RoomEvent.Tokens) runToIdle(prefill).getFirst();

        assertThat(second.progress().cachedTokens()).isEqualTo(2000);
    }

    @Test
    void aPrefillRequestNoDecodeRegistersFailsAfterTheBootstrapTimeoutAsSglangSays() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        prefill.submit(ROOM, new GenerationRequest(prompt(1, 100), 8), 1_000);

        RoomEvent.Failed failed = onlyFailure(runToIdle(prefill));

        assertThat(failed.atNanos()).isEqualTo(1_000 + TIMEOUT);
        assertThat(failed.reason()).isEqualTo("KVTransferError(bootstrap_room=4242424242): Request 4242424242 "
            + "timed out after 5.0s in KVPoll.Bootstrapping");
        assertThat(prefill.rooms()).isZero();
        assertThat(prefill.stats().runningRequests() + prefill.stats().waitingRequests()).isZero();
    }

    @Test
    void aWithdrawnRegistrationLeavesNothingBehind() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        prefill.register(ROOM, 0);
        prefill.withdraw(ROOM, 10);

        assertThat(prefill.rooms()).isZero();
        assertThat(prefill.nextEventNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void anAbortedPrefillSaysWhetherADecodeEngineWaitedForIt() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        prefill.submit(1, new GenerationRequest(prompt(1, 100), 8), 0);
        prefill.register(2, 0);
        prefill.submit(2, new GenerationRequest(prompt(1000, 100), 8), 0);

        assertThat(prefill.abort(1, 10)).isFalse();
        assertThat(prefill.abort(2, 10)).isTrue();
        assertThat(runToIdle(prefill)).isEmpty();
        assertThat(prefill.rooms()).isZero();
        assertThat(prefill.stats().runningRequests()).isZero();
    }

    @Test
    void aRoomTakesOneRequestOnEachSide() {
        PrefillEngine prefill = new PrefillEngine(ENGINE, LINK);
        DecodeEngine decode = new DecodeEngine(ENGINE, LINK);
        GenerationRequest request = new GenerationRequest(prompt(1, 100), 8);
        prefill.submit(ROOM, request, 0);
        decode.submit(ROOM, request, 0);

        assertThatThrownBy(() -> prefill.submit(ROOM, request, 0)).hasMessageContaining("already in use");
        assertThatThrownBy(() -> decode.submit(ROOM, request, 0)).hasMessageContaining("already in use");
        assertThat(prefill.register(ROOM, 0)).isTrue();
        assertThat(prefill.register(ROOM, 0)).isFalse();
    }

    @Test
    void aDecodeRequestDecodesOnceItsKvHasCrossedTheLinkAndReportsThePrefillsHit() {
        DecodeEngine decode = new DecodeEngine(ENGINE, LINK);
        decode.submit(ROOM, new GenerationRequest(prompt(1, 1000), 4), 0);
        long ready = TimeUnit.MILLISECONDS.toNanos(70);
        decode.kvReady(ROOM, 600, ready);

        List<RoomEvent> events = runToIdle(decode);

        long arrived = ready + 1000 * 100 + 1_000_000;
        List<Progress> tokens = events.stream().map(event -> ((RoomEvent.Tokens) event).progress()).toList();
        assertThat(tokens).extracting(Progress::completionTokens).containsExactly(1, 2, 3, 4);
        assertThat(tokens.getFirst().atNanos()).isEqualTo(arrived + TIMING.decodeNanos(1, 1000));
        assertThat(tokens.getFirst().arrivalNanos()).as("counted from the request's arrival here").isZero();
        assertThat(tokens.getLast().cachedTokens()).isEqualTo(600);
        assertThat(tokens.getLast().promptTokens()).isEqualTo(1000);
        assertThat(decode.rooms()).isZero();
    }

    @Test
    void aDecodeEngineNeitherMatchesNorKeepsTheKvItReceives() {
        DecodeEngine decode = new DecodeEngine(ENGINE, LINK);
        long now = 0;
        for (long room = 1; room <= 2; room++) {
            decode.submit(room, new GenerationRequest(prompt(1, 500), 4), now);
            decode.kvReady(room, 0, now);
            now = ((RoomEvent.Tokens) runToIdle(decode).getLast()).progress().atNanos();
        }

        assertThat(decode.stats().cachedTokens()).isZero();
        assertThat(decode.stats().usedTokens()).isZero();
        assertThat(decode.stats().cachedTokensTotal()).isZero();
        assertThat(decode.stats().promptTokensTotal()).isEqualTo(1000);
    }

    @Test
    void transfersCrossTheLinkOneAfterTheOther() {
        TransferLink link = new TransferLink(8, 500);

        long first = link.transfer(0, 1_000);
        long second = link.transfer(0, 1_000);
        long later = link.transfer(10_000, 1_000);

        assertThat(first).isEqualTo(1_500);
        assertThat(second).isEqualTo(2_500);
        assertThat(later).isEqualTo(11_500);
    }

    @Test
    void aDecodeRequestWhosePrefillNeverComesFailsAfterTheTimeoutAsSglangSays() {
        DecodeEngine decode = new DecodeEngine(ENGINE, LINK);
        decode.submit(ROOM, new GenerationRequest(prompt(1, 100), 8), 0);

        RoomEvent.Failed failed = onlyFailure(runToIdle(decode));

        assertThat(failed.atNanos()).isEqualTo(TIMEOUT);
        assertThat(failed.reason()).endsWith("timed out after 5.0s in KVPoll.WaitingForInput");
        assertThat(decode.rooms()).isZero();
        assertThat(decode.kvReady(ROOM, 0, TIMEOUT + 1)).isFalse();
    }

    @Test
    void aDecodeRequestFailsAtOnceWhenItsPrefillCannotCome() {
        DecodeEngine decode = new DecodeEngine(ENGINE, LINK);
        decode.submit(ROOM, new GenerationRequest(prompt(1, 100), 8), 0);

        assertThat(decode.fail(ROOM, KvTransferError.of(ROOM, "prefill gone"), 50)).isTrue();
        RoomEvent.Failed failed = onlyFailure(decode.advanceTo(50));

        assertThat(failed.reason()).isEqualTo("KVTransferError(bootstrap_room=4242424242): prefill gone");
        assertThat(decode.nextEventNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aRequestForZeroTokensEndsWhenItsKvArrives() {
        DecodeEngine decode = new DecodeEngine(ENGINE, LINK);
        decode.submit(ROOM, new GenerationRequest(prompt(1, 100), 0), 0);
        decode.kvReady(ROOM, 0, 0);

        List<RoomEvent> events = runToIdle(decode);

        assertThat(events).singleElement().isInstanceOfSatisfying(RoomEvent.Tokens.class, tokens -> {
            assertThat(tokens.progress().finished()).isTrue();
            assertThat(tokens.progress().completionTokens()).isZero();
        });
    }

    private static RoomEvent.Failed onlyFailure(List<RoomEvent> events) {
        assertThat(events).singleElement().isInstanceOf(RoomEvent.Failed.class);
        return (RoomEvent.Failed) events.getFirst();
    }
}
