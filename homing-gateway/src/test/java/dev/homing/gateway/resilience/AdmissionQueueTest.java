package dev.homing.gateway.resilience;

import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.resilience.AdmissionQueue.Admitted;
import dev.homing.gateway.resilience.AdmissionQueue.Permit;
import dev.homing.gateway.resilience.AdmissionQueue.Queued;
import dev.homing.gateway.resilience.AdmissionQueue.Rejected;
import dev.homing.gateway.resilience.AdmissionQueue.Rejection;
import dev.homing.gateway.resilience.AdmissionQueue.Settings;
import dev.homing.gateway.resilience.AdmissionQueue.Ticket;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdmissionQueueTest {

    private static final long SIXTY_SECONDS = TimeUnit.SECONDS.toNanos(60);

    private final FakeClock clock = new FakeClock();

    private AdmissionQueue queue(int maxConcurrent, int queueSize) {
        return new AdmissionQueue(new Settings(maxConcurrent, queueSize, SIXTY_SECONDS, 0), clock);
    }

    private static Permit admitted(AdmissionQueue.Result r) {
        assertThat(r).isInstanceOf(Admitted.class);
        return ((Admitted) r).permit();
    }

    private static Ticket queued(AdmissionQueue.Result r) {
        assertThat(r).isInstanceOf(Queued.class);
        return ((Queued) r).ticket();
    }

    private static Rejected rejectionOf(Ticket t) {
        assertThat(t.permit()).isCompletedExceptionally();
        assertThatThrownBy(t.permit()::join).isInstanceOf(CompletionException.class).hasCauseInstanceOf(Rejection.class);
        return ((Rejection) t.permit().exceptionNow()).rejected();
    }

    @Test
    void requestsUpToTheCapAreAdmittedAtOnce() {
        AdmissionQueue q = queue(2, 10);

        admitted(q.tryAcquire());
        admitted(q.tryAcquire());

        assertThat(q.inFlight()).isEqualTo(2);
        queued(q.tryAcquire());
    }

    @Test
    void aFullQueueAnswers429WithRetryAfterOneSecond() {
        AdmissionQueue q = queue(1, 2);
        q.tryAcquire();
        q.tryAcquire();
        q.tryAcquire();

        assertThat(q.tryAcquire()).isEqualTo(new Rejected(429, "rate_limit_exceeded", 1));
        assertThat(q.waiting()).isEqualTo(2);
    }

    @Test
    void aZeroQueueRefusesAtOnceWhenEveryPermitIsOut() {
        AdmissionQueue q = queue(1, 0);
        q.tryAcquire();

        assertThat(q.tryAcquire()).isInstanceOf(Rejected.class);
    }

    @Test
    void waitersAreAdmittedInArrivalOrder() {
        AdmissionQueue q = queue(1, 10);
        Permit running = admitted(q.tryAcquire());
        List<Integer> order = new ArrayList<>();
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Ticket t = queued(q.tryAcquire());
            int n = i;
            t.permit().thenAccept(p -> {
                order.add(n);
                p.release();
            });
            tickets.add(t);
        }

        running.release();

        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(q.inFlight()).isZero();
        assertThat(q.waiting()).isZero();
    }

    @Test
    void aNewcomerDoesNotOvertakeAWaiter() {
        AdmissionQueue q = new AdmissionQueue(new Settings(1, 10, SIXTY_SECONDS, 1), clock);
        Permit first = admitted(q.tryAcquire());
        first.release();
        // The permit is free but the single token is gone: the next request must wait for the refill...
        Ticket waiter = queued(q.tryAcquire());
        clock.advance(Duration.ofSeconds(1));

        // ...and a newcomer arriving when the token is back queues behind it rather than taking it.
        Ticket newcomer = queued(q.tryAcquire());
        q.pump();

        assertThat(waiter.permit()).isCompleted();
        assertThat(newcomer.permit()).isNotDone();
    }

    @Test
    void aWaiterThatOutlivesTheTimeoutGets503NotA408ThatClientsRetryAtOnce() {
        AdmissionQueue q = queue(1, 10);
        q.tryAcquire();
        Ticket t = queued(q.tryAcquire());
        assertThat(t.deadlineNanos()).isEqualTo(clock.getAsLong() + SIXTY_SECONDS);

        clock.advance(Duration.ofSeconds(60));

        assertThat(q.expire(t)).isTrue();
        assertThat(rejectionOf(t)).isEqualTo(new Rejected(503, "queue_timeout", 1));
        assertThat(q.waiting()).isZero();
    }

    @Test
    void anEarlyTimerDoesNotExpireTheTicket() {
        AdmissionQueue q = queue(1, 10);
        q.tryAcquire();
        Ticket t = queued(q.tryAcquire());
        clock.advance(Duration.ofSeconds(59));

        assertThat(q.expire(t)).isFalse();
        assertThat(t.permit()).isNotDone();
    }

    @Test
    void anOverdueWaiterIsNotAdmittedWhenAPermitFreesUp() {
        AdmissionQueue q = queue(1, 10);
        Permit running = admitted(q.tryAcquire());
        Ticket late = queued(q.tryAcquire());
        clock.advance(Duration.ofSeconds(30));
        Ticket onTime = queued(q.tryAcquire());
        clock.advance(Duration.ofSeconds(30));

        running.release();

        assertThat(rejectionOf(late).status()).isEqualTo(503);
        assertThat(onTime.permit()).isCompleted();
    }

    @Test
    void aPermitIsReleasedOnlyOnce() {
        AdmissionQueue q = queue(2, 10);
        Permit p = admitted(q.tryAcquire());
        admitted(q.tryAcquire());

        assertThat(p.release()).isTrue();
        assertThat(p.release()).isFalse();
        assertThat(q.inFlight()).isEqualTo(1);
    }

    @Test
    void aCancelledWaiterLeavesTheQueueAndGetsNoPermit() {
        AdmissionQueue q = queue(1, 10);
        Permit running = admitted(q.tryAcquire());
        Ticket gone = queued(q.tryAcquire());
        Ticket next = queued(q.tryAcquire());

        assertThat(q.cancel(gone)).isTrue();
        running.release();

        assertThat(gone.permit()).isCancelled();
        assertThat(next.permit()).isCompleted();
        assertThat(q.inFlight()).isEqualTo(1);
    }

    @Test
    void cancellingAnAdmittedTicketReportsThatItsPermitMustStillBeReleased() {
        AdmissionQueue q = queue(1, 10);
        Permit running = admitted(q.tryAcquire());
        Ticket t = queued(q.tryAcquire());
        running.release();

        assertThat(q.cancel(t)).isFalse();
        assertThat(t.permit().join().release()).isTrue();
        assertThat(q.inFlight()).isZero();
    }

    @Test
    void withARateLimitTheConcurrencyCapStillHoldsAfterTheBucketRefills() {
        AdmissionQueue q = new AdmissionQueue(new Settings(2, 10, SIXTY_SECONDS, 2), clock);
        admitted(q.tryAcquire());
        admitted(q.tryAcquire());

        clock.advance(Duration.ofSeconds(10));

        queued(q.tryAcquire());
        assertThat(q.pump()).isEqualTo(-1);
        assertThat(q.inFlight()).isEqualTo(2);
    }

    @Test
    void withARateLimitAdmissionsArePacedAndPumpSaysWhenTheNextTokenComes() {
        AdmissionQueue q = new AdmissionQueue(new Settings(4, 10, SIXTY_SECONDS, 2), clock);
        for (int i = 0; i < 4; i++) {
            admitted(q.tryAcquire()).release();
        }
        Ticket t = queued(q.tryAcquire());

        assertThat(q.pump()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        clock.advance(Duration.ofMillis(500));
        assertThat(q.pump()).isEqualTo(-1);
        assertThat(t.permit()).isCompleted();
    }

    @Test
    void withARateLimitRetryAfterIsTheTimeTheQueueNeedsToDrain() {
        AdmissionQueue q = new AdmissionQueue(new Settings(1, 5, SIXTY_SECONDS, 2), clock);
        q.tryAcquire();
        for (int i = 0; i < 5; i++) {
            q.tryAcquire();
        }

        // Six requests ahead of a newcomer at two per second: three seconds.
        assertThat(q.tryAcquire()).isEqualTo(new Rejected(429, "rate_limit_exceeded", 3));
    }

    @Test
    void turnedOffItAdmitsEverything() {
        AdmissionQueue q = new AdmissionQueue(GatewayConfig.DEFAULTS.admissionSettings(), clock);
        for (int i = 0; i < 10_000; i++) {
            admitted(q.tryAcquire());
        }
        assertThat(q.waiting()).isZero();
    }

    @Test
    void underContentionThePermitsOutNeverExceedTheCapAndAllRequestsFinish() throws InterruptedException {
        int cap = 3;
        AdmissionQueue q = new AdmissionQueue(new Settings(cap, 1000, SIXTY_SECONDS, 0), () -> 0L);
        java.util.concurrent.atomic.AtomicInteger holding = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger worst = new java.util.concurrent.atomic.AtomicInteger();
        int threads = 16;
        int each = 50;
        CountDownLatch finished = new CountDownLatch(threads * each);
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        Runnable work = () -> {
            worst.accumulateAndGet(holding.incrementAndGet(), Math::max);
            holding.decrementAndGet();
        };
        for (int t = 0; t < threads; t++) {
            Thread.ofVirtual().start(() -> {
                for (int i = 0; i < each; i++) {
                    switch (q.tryAcquire()) {
                        case Admitted a -> {
                            work.run();
                            a.permit().release();
                            finished.countDown();
                        }
                        case Queued qd -> qd.ticket().permit().thenAccept(p -> {
                            work.run();
                            p.release();
                            finished.countDown();
                        });
                        case Rejected r -> errors.add(new AssertionError("rejected " + r));
                    }
                }
            });
        }

        assertThat(finished.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(errors).isEmpty();
        assertThat(worst.get()).isLessThanOrEqualTo(cap);
        assertThat(q.inFlight()).isZero();
        assertThat(q.waiting()).isZero();
    }
}
