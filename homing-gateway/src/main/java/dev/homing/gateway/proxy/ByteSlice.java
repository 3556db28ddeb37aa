package dev.homing.gateway.proxy;

import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * A range of a byte array: a Vert.x buffer's bytes where they already are, so a body can be parsed without copying
 * it. The array is shared with the buffer: read it, never write it.
 *
 * @param array  the bytes
 * @param offset where the range starts in {@code array}
 * @param length how many bytes it holds
 */
public record ByteSlice(byte[] array, int offset, int length) {

    public ByteSlice {
        if (offset < 0 || length < 0 || offset + length > array.length) {
            throw new IndexOutOfBoundsException("slice " + offset + "+" + length + " of " + array.length);
        }
    }

    public static ByteSlice of(byte[] array) {
        return new ByteSlice(array, 0, array.length);
    }

    /**
     * The buffer's readable bytes in place when it is backed by a heap array (as the buffers Vert.x hands to a
     * request handler are), else a copy.
     */
    public static ByteSlice of(Buffer buffer) {
        // Vert.x's public Buffer API offers only copies; its internal view is a Netty slice sharing the array.
        if (buffer instanceof BufferInternal internal) {
            ByteBuf bytes = internal.getByteBuf();
            if (bytes.hasArray()) {
                return new ByteSlice(bytes.array(), bytes.arrayOffset() + bytes.readerIndex(), bytes.readableBytes());
            }
        }
        return of(buffer.getBytes());
    }
}
