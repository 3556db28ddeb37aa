package dev.homing.sim.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends the {@code x-request-id} of every inference request the engine answers in full, one a line, so a fault
 * test can prove that no request ran twice across engines, even across a killed engine. Each line is one unbuffered
 * append (atomic on a local file system): a process killed with SIGKILL loses no line it had written.
 *
 * <p>Opt-in ({@code --record-request-ids FILE}); with no file it does nothing. Confined to the engine's event loop;
 * the write blocks, which is fine for a test aid writing a few dozen bytes per answered request.
 */
final class CompletedRequestLog implements AutoCloseable {

    /** Records nothing. */
    static final CompletedRequestLog OFF = new CompletedRequestLog(null);

    private final FileChannel file;

    private CompletedRequestLog(FileChannel file) {
        this.file = file;
    }

    /** A log appending to {@code path} (created if absent), or {@link #OFF} for a null path. */
    static CompletedRequestLog open(Path path) {
        if (path == null) {
            return OFF;
        }
        try {
            return new CompletedRequestLog(FileChannel.open(path, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the request-id log " + path, e);
        }
    }

    /** Records that the request named {@code requestId} was answered in full; a request without an id is skipped. */
    void completed(String requestId) {
        if (file == null || requestId == null || requestId.isEmpty()) {
            return;
        }
        try {
            file.write(ByteBuffer.wrap((requestId + "\n").getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the request-id log", e);
        }
    }

    @Override
    public void close() {
        if (file == null) {
            return;
        }
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the request-id log", e);
        }
    }
}
