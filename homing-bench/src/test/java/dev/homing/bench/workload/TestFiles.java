package dev.homing.bench.workload;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Paths of the hand-written sample traces under the test resources. */
final class TestFiles {

    private TestFiles() {
    }

    static Path resource(String name) {
        try {
            return Path.of(TestFiles.class.getResource("/workload/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
