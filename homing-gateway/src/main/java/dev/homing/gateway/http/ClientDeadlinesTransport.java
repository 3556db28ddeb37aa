package dev.homing.gateway.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.transport.Transport;


/**
 * The gateway's I/O transport ({@link IoTransports}: io_uring, epoll or NIO) with one addition: every connection a
 * server with an idle timeout accepts gets {@link ClientDeadlines} at the moment of accept. Vert.x has no public hook
 * that early (its connection handler runs only once the HTTP pipeline is set up, after the first bytes when HTTP/2
 * over plain text is allowed: too late to time the head of a client that sends nothing), so the hook is the
 * transport, which configures each server bootstrap. Both of the gateway's listeners (the data plane and the metrics
 * port) have one; a server without an idle timeout is left as it is: Vert.x gives it no idle handler, the deadlines'
 * anchor (see {@link ClientDeadlines.FirstBytes}).
 */
public final class ClientDeadlinesTransport implements Transport {

    private final Transport base;
    private final Hooked implementation;

    /**
     * {@code base} (from {@link IoTransports#named}), with the deadlines hooked into its server bootstraps and its
     * event loops spinning for {@code busyPollMicros} after I/O ({@link BusyPollingIoHandler}; 0: never).
     */
    public ClientDeadlinesTransport(Transport base, ClientDeadlines.Settings settings, EdgeRefusals refusals,
                                    long busyPollMicros) {
        this.base = base;
        this.implementation = new Hooked(base.implementation(),
                BusyPollingIoHandler.factory(IoTransports.ioHandlerFactory(base), busyPollMicros), settings, refusals);
    }

    @Override
    public String name() {
        return base.name() + "+client-deadlines";
    }

    /** The transport under the hook: {@code io_uring}, {@code epoll} or {@code nio}. */
    public String baseName() {
        return base.name();
    }

    @Override
    public boolean available() {
        return true;
    }

    @Override
    public Throwable unavailabilityCause() {
        return null;
    }

    @Override
    public io.vertx.core.spi.transport.Transport implementation() {
        return implementation;
    }

    /** Sees each accepted channel before Vert.x initialises it, and puts the deadline handlers at its head. */
    @ChannelHandler.Sharable
    private static final class OnAccept extends ChannelInboundHandlerAdapter {
        private final ClientDeadlines.Settings settings;
        private final EdgeRefusals refusals;
        private final ClientDeadlines.Placement placement = new ClientDeadlines.Placement();

        OnAccept(ClientDeadlines.Settings settings, EdgeRefusals refusals) {
            this.settings = settings;
            this.refusals = refusals;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof Channel child) {
                child.pipeline().addFirst(
                        new ClientDeadlines.FirstBytes(new ClientDeadlines(settings, refusals, placement)));
            }
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * The base transport, delegated to in everything but the server bootstrap and its event loops' I/O handlers
     * ({@code ioHandlers}, from {@link IoTransports#ioHandlerFactory}, spinning or not; the event loop groups are
     * built from them by the interface's default, as every Vert.x transport builds its own).
     */
    private record Hooked(io.vertx.core.spi.transport.Transport base, IoHandlerFactory ioHandlers,
                          ClientDeadlines.Settings settings, EdgeRefusals refusals)
            implements io.vertx.core.spi.transport.Transport {

        @Override
        public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap bootstrap) {
            base.configure(options, domainSocket, bootstrap);
            if (options.getIdleTimeout() > 0) {
                bootstrap.handler(new OnAccept(settings, refusals));
            }
        }

        @Override
        public IoHandlerFactory ioHandlerFactory() {
            return ioHandlers;
        }

        @Override
        public DatagramChannel datagramChannel() {
            return base.datagramChannel();
        }

        @Override
        public DatagramChannel datagramChannel(InternetProtocolFamily family) {
            return base.datagramChannel(family);
        }

        @Override
        public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
            return base.channelFactory(domainSocket);
        }

        @Override
        public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
            return base.serverChannelFactory(domainSocket);
        }

        @Override
        public boolean supportsDomainSockets() {
            return base.supportsDomainSockets();
        }

        @Override
        public boolean supportFileRegion() {
            return base.supportFileRegion();
        }

        @Override
        public java.net.SocketAddress convert(SocketAddress address) {
            return base.convert(address);
        }

        @Override
        public SocketAddress convert(java.net.SocketAddress address) {
            return base.convert(address);
        }

        @Override
        public void configure(DatagramChannel channel, DatagramSocketOptions options) {
            base.configure(channel, options);
        }

        @Override
        public void configure(ClientOptionsBase options, int connectTimeout, boolean domainSocket,
                              io.netty.bootstrap.Bootstrap bootstrap) {
            base.configure(options, connectTimeout, domainSocket, bootstrap);
        }
    }
}
