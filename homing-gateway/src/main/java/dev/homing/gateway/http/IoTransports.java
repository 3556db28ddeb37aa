package dev.homing.gateway.http;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.vertx.core.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O transport under the gateway's sockets ({@code --io-transport}): Netty's io_uring where the kernel lets the
 * process set a ring up, else its epoll, else the JDK's NIO.
 *
 * <p>Why io_uring first: a proxied request is four socket calls (read the client, write the worker, read the worker,
 * write the client), and on a kernel with page-table isolation each system call is dear. io_uring hands them to the
 * kernel in batches, one call a turn of the event loop for every connection that turn served; epoll costs one call
 * each. Where io_uring cannot start (a kernel too old for Netty's ring, a container whose seccomp profile refuses
 * {@code io_uring_setup}, {@code kernel.io_uring_disabled}), {@code auto} falls back and says why, once; a transport
 * named explicitly must start or the gateway does not.
 */
public final class IoTransports {

    private static final Logger LOG = LoggerFactory.getLogger(IoTransports.class);
    private static final String AUTO = "auto";
    /**
     * Completions an io_uring ring holds between two turns of its event loop. Netty's 4,096 overflowed while 10,000
     * streams opened at once (the kernel keeps the rest, Netty warns at every overflow). Not more: where the kernel
     * gives 32-byte completions (6.18 on), Netty keeps a {@code ByteBuffer} view of each slot on the heap, 68 bytes a
     * slot, so this is about 1 MiB of heap a ring (and 512 KiB of ring); 32,768 was twice that.
     */
    private static final int COMPLETION_QUEUE = 16_384;

    private IoTransports() {
    }

    /**
     * The transport {@code name} ({@code auto}, {@code io_uring}, {@code epoll} or {@code nio}) stands for; for
     * {@code auto}, the first of io_uring, epoll and NIO that starts here.
     *
     * @throws IllegalArgumentException if a transport named explicitly cannot start here ({@link #problem})
     */
    public static Transport named(String name) {
        if (name.equals(AUTO)) {
            return Auto.CHOICE;
        }
        Transport transport = of(name);
        String problem = problem(name);
        if (transport == null || problem != null) {
            throw new IllegalArgumentException(problem != null ? problem : "--io-transport: no transport '" + name
                    + "'");
        }
        return transport;
    }

    /**
     * Why the transport {@code name} cannot start here, naming the flag; null if it can (auto always can) or if the
     * name is none of the four (the settings table's own check says so).
     */
    public static String problem(String name) {
        return problem(name, of(name));
    }

    /** Why {@code transport}, named {@code name}, cannot start here; null if it can or is null. */
    static String problem(String name, Transport transport) {
        return transport == null || transport.available() ? null : "--io-transport " + name + " cannot start here: "
                + cause(transport) + " (auto falls back to the next transport that starts)";
    }

    /**
     * The I/O handlers of {@code transport}'s event loops: on io_uring with a completion queue of at least
     * {@link #COMPLETION_QUEUE}, else the transport's own.
     */
    static IoHandlerFactory ioHandlerFactory(Transport transport) {
        IoHandlerFactory own = transport.implementation().ioHandlerFactory();
        if (transport != Transport.IO_URING) {
            return own;
        }
        IoUringIoHandlerConfig config = new IoUringIoHandlerConfig();
        // A size of -1: the kernel cannot be told one (before 5.5), and the ring is twice its submission queue.
        return config.getCqSize() < 0 ? own
                : IoUringIoHandler.newFactory(config.setCqSize(Math.max(COMPLETION_QUEUE, config.getCqSize())));
    }

    /** The explicitly named transport, or null. */
    private static Transport of(String name) {
        return switch (name) {
            case "io_uring" -> Transport.IO_URING;
            case "epoll" -> Transport.EPOLL;
            case "nio" -> Transport.NIO;
            default -> null;
        };
    }

    /** The choice of {@code auto}, made (and a fallback logged) once a process, at its first use. */
    private static final class Auto {
        static final Transport CHOICE = firstAvailable();

        private static Transport firstAvailable() {
            if (Transport.IO_URING.available()) {
                return Transport.IO_URING;
            }
            Transport fallback = Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;
            LOG.info("io_uring cannot start here ({}); the gateway's sockets use {}", cause(Transport.IO_URING),
                    fallback.name());
            return fallback;
        }
    }

    private static String cause(Transport transport) {
        Throwable cause = transport.unavailabilityCause();
        // The innermost cause names the refusal (a missing native library, a refused system call).
        while (cause != null && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause == null ? "no reason given" : cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
