package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteSliceTest {

    private static byte[] bytesOf(ByteSlice slice) {
        return Arrays.copyOfRange(slice.array(), slice.offset(), slice.offset() + slice.length());
    }

    @Test
    void aHeapBufferIsReadInPlaceNotCopied() {
        Buffer buffer = Buffer.buffer("{\"a\":1}");

        ByteSlice first = ByteSlice.of(buffer);
        ByteSlice second = ByteSlice.of(buffer);

        assertThat(bytesOf(first)).isEqualTo("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(first.array()).isSameAs(second.array());
    }

    @Test
    void aSliceOfABufferStartsWhereTheSliceStarts() {
        Buffer slice = Buffer.buffer("xxx{\"a\":1}yy").slice(3, 10);

        ByteSlice bytes = ByteSlice.of(slice);

        assertThat(bytes.offset()).isEqualTo(3);
        assertThat(bytesOf(bytes)).isEqualTo("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRangeOutsideItsArrayIsRefused() {
        assertThatThrownBy(() -> new ByteSlice(new byte[4], 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
