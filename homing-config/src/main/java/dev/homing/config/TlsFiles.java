package dev.homing.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Start-up checks of {@code --tls-cert-path} and {@code --tls-key-path}, so a missing, unreadable or mistaken file is
 * reported by its flag before anything listens. Whether the key matches the certificate is left to the TLS stack,
 * which refuses the pair when the listener starts.
 */
final class TlsFiles {

    private TlsFiles() {
    }

    /** What is wrong with the pair, one line each naming its flag; empty when both are fine or both are absent. */
    static List<String> problems(String certPath, String keyPath) {
        List<String> problems = new ArrayList<>();
        if (certPath == null && keyPath == null) {
            return problems;
        }
        if (certPath == null || keyPath == null) {
            problems.add(Settings.TLS_CERT_PATH.flag() + " and " + Settings.TLS_KEY_PATH.flag()
                    + " go together: give both or neither");
            return problems;
        }
        pem(problems, Settings.TLS_CERT_PATH.flag(), certPath, "CERTIFICATE");
        pem(problems, Settings.TLS_KEY_PATH.flag(), keyPath, "PRIVATE KEY");
        return problems;
    }

    /** Checks that {@code path} is a readable PEM file holding a block whose label ends with {@code label}. */
    private static void pem(List<String> problems, String flag, String path, String label) {
        if (path.isBlank()) {
            problems.add(flag + " must not be blank");
            return;
        }
        String text;
        try {
            text = Files.readString(Path.of(path), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            problems.add(flag + ": cannot read " + path + " (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                    + ")");
            return;
        }
        if (!text.matches("(?s).*-----BEGIN [A-Z0-9 ]*" + label + "-----.*")) {
            problems.add(flag + ": " + path + " holds no PEM " + label.toLowerCase(java.util.Locale.ROOT)
                    + " (a '-----BEGIN ..." + label + "-----' block)");
        }
    }
}
