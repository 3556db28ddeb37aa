package dev.homing.gateway.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiKeyCheckTest {

    private final ApiKeyCheck check = ApiKeyCheck.of("sk-secret-123");

    @ParameterizedTest(name = "\"{0}\" matches")
    @ValueSource(strings = {"Bearer sk-secret-123", "bearer sk-secret-123", "BEARER sk-secret-123"})
    void theRightBearerTokenMatchesWhateverTheCaseOfTheScheme(String header) {
        assertThat(check.matches(header)).isTrue();
    }

    @ParameterizedTest(name = "\"{0}\" does not match")
    @NullAndEmptySource
    @ValueSource(strings = {
        "Bearer sk-secret-124", // a wrong token
        "Bearer sk-secret-12", "Bearer sk-secret-1234", // a prefix or an extension of the key
        "Bearer ", // an empty token
        "sk-secret-123", "Basic sk-secret-123" // the key without the bearer scheme
    })
    void aWrongMissingOrUnschemedTokenDoesNotMatch(String header) {
        assertThat(check.matches(header)).isFalse();
    }

    @Test
    void theKeyNeverAppearsInToString() {
        assertThat(check.toString()).doesNotContain("sk-secret").contains("redacted");
    }

    @Test
    void aBlankKeyIsRefused() {
        assertThatThrownBy(() -> ApiKeyCheck.of(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nonAsciiKeysCompareByTheirUtf8Bytes() {
        ApiKeyCheck unicode = ApiKeyCheck.of("clé-ü");
        assertThat(unicode.matches("Bearer clé-ü")).isTrue();
        assertThat(unicode.matches("Bearer cle-u")).isFalse();
    }
}
