package dev.homing.core.kv;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenAgreementTest {

    private final TokenAgreement agreement = new TokenAgreement();

    private void checks(int count, boolean differing) {
        for (int i = 0; i < count; i++) {
            agreement.check(100, differing ? 104 : 100);
        }
    }

    @Test
    void countsThatMatchAgree() {
        checks(40, false);

        assertThat(agreement.differ()).isFalse();
        assertThat(agreement.summary()).isEqualTo(new TokenAgreement.Summary(40, 0, false, null));
    }

    @Test
    void theFirstChecksAllDifferingGiveAVerdictAtTheFourth() {
        checks(TokenAgreement.MIN_CHECKS - 1, true);
        assertThat(agreement.differ()).as("too few to say").isFalse();
        assertThat(agreement.settled()).isFalse();

        assertThat(agreement.check(1_203, 1_187)).isTrue();

        assertThat(agreement.differ()).isTrue();
        assertThat(agreement.settled()).isTrue();
        assertThat(agreement.summary().lastDifference()).isEqualTo(new TokenAgreement.Difference(1_203, 1_187));
    }

    @Test
    void blocksTheEngineNeverStoredCountTowardsTheSameVerdictAsDifferingCounts() {
        checks(2, true);
        assertThat(agreement.checkStored(false)).isTrue();
        assertThat(agreement.differ()).isFalse();

        assertThat(agreement.checkStored(false)).isTrue();

        assertThat(agreement.differ()).isTrue();
        assertThat(agreement.summary()).as("the last difference is the last count that differed")
            .isEqualTo(new TokenAgreement.Summary(0, 4, true, new TokenAgreement.Difference(100, 104)));
        for (int i = 0; i < TokenAgreement.WINDOW; i++) {
            assertThat(agreement.checkStored(true)).isFalse();
        }
        assertThat(agreement.differ()).isFalse();
    }

    @Test
    void aFewOddRequestsAmongAgreeingOnesChangeNothing() {
        for (int round = 0; round < 10; round++) {
            checks(3, false);
            checks(1, true);
        }

        assertThat(agreement.differ()).as("a quarter differs").isFalse();
        assertThat(agreement.summary().differed()).isEqualTo(10);
    }

    @Test
    void differingCountsAreSetAsideUntilAtMostAQuarterOfTheWindowDiffers() {
        checks(TokenAgreement.WINDOW, true);
        assertThat(agreement.differ()).isTrue();

        checks(TokenAgreement.WINDOW * 3 / 4 - 1, false);
        assertThat(agreement.differ()).as("still more than a quarter of the window differs").isTrue();

        checks(1, false);
        assertThat(agreement.differ()).isFalse();
    }

    @Test
    void halfAndHalfKeepsWhicheverVerdictCameFirst() {
        for (int round = 0; round < 20; round++) {
            checks(1, false);
            checks(1, true);
        }
        assertThat(agreement.differ()).isFalse();

        checks(TokenAgreement.WINDOW, true);
        for (int round = 0; round < 20; round++) {
            checks(1, false);
            checks(1, true);
        }
        assertThat(agreement.differ()).isTrue();
    }
}
