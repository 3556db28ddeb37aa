package dev.homing.bench.workload;

import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** An ordered, sequential stream that pulls from an iterator only as far as it is consumed. */
final class LazyStream {

    private LazyStream() {
    }

    static <T> Stream<T> of(Iterator<T> iterator) {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(iterator, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }
}
