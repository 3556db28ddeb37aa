package dev.homing.bench.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.function.Function;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** Ordered, sequential streams that pull from an iterator (or a trace file) only as far as they are consumed. */
final class LazyStream {

    private LazyStream() {
    }

    static <T> Stream<T> of(Iterator<T> iterator) {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    /**
     * The rows of a UTF-8 text file, read by {@code rows} as the stream is consumed; closing the stream closes the
     * file. Trace readers share this so none of them holds a whole trace in memory.
     */
    static <T> Stream<T> ofFile(Path file, Function<BufferedReader, Iterator<T>> rows) {
        BufferedReader reader;
        try {
            reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return of(rows.apply(reader)).onClose(() -> {
            try {
                reader.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The file's name without {@code extension}, for a workload's name. */
    static String baseName(Path file, String extension) {
        String name = file.getFileName().toString();
        return name.endsWith(extension) ? name.substring(0, name.length() - extension.length()) : name;
    }
}
