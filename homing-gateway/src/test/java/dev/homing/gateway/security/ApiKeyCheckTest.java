package dev.homing.gateway.security;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiKeyCheckTest {

    private final ApiKeyCheck check = ApiKeyCheck.of("sk-secret-123");

    @Test
    void theRightBearerTokenMatches() {
        assertThat(check.matches("Bearer sk-secret-123")).isTrue();
    }

    @Test
    void theBearerSchemeIsCaseInsensitive() {
        assertThat(check.matches("bearer sk-secret-123")).isTrue();
        assertThat(check.matches("BEARER sk-secret-123")).isTrue();
    }

    @Test
    void aWrongTokenDoesNotMatch() {
        assertThat(check.matches("Bearer sk-secret-124")).isFalse();
    }

    @Test
    void aPrefixOrAnExtensionOfTheKeyDoesNotMatch() {
        assertThat(check.matches("Bearer sk-secret-12")).isFalse();
        assertThat(check.matches("Bearer sk-secret-1234")).isFalse();
    }

    @Test
    void aMissingOrEmptyHeaderDoesNotMatch() {
        assertThat(check.matches(null)).isFalse();
        assertThat(check.matches("")).isFalse();
        assertThat(check.matches("Bearer ")).isFalse();
    }

    @Test
    void theKeyWithoutTheBearerSchemeDoesNotMatch() {
        assertThat(check.matches("sk-secret-123")).isFalse();
        assertThat(check.matches("Basic sk-secret-123")).isFalse();
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
